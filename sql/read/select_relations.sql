-- Tables and views of the open database an export may read (linkpipe.lib.exports), by name.
SELECT table_name, table_type FROM information_schema.tables
WHERE table_catalog = current_database() AND table_schema = 'main'
ORDER BY table_name;
