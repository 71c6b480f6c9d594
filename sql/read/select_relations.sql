-- Tables and views of the open database, by name: what an export may read (linkpipe.lib.exports),
-- and the tables a schema migration looks for (linkpipe.lib.storage.connection).
SELECT table_name, table_type FROM information_schema.tables
WHERE table_catalog = current_database() AND table_schema = 'main'
ORDER BY table_name;
