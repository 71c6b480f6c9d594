-- Columns of a table in schema order, for the table schema of an asset's materialization.
SELECT column_name, data_type, is_nullable = 'YES' AS nullable
FROM information_schema.columns
WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = ?
ORDER BY ordinal_position;
