-- Tables of the attached published copy (linkpipe.lib.storage.publish_copy), in name order.
SELECT table_name FROM information_schema.tables
WHERE table_catalog = 'published' AND table_schema = 'main' AND table_type = 'BASE TABLE'
ORDER BY table_name;
