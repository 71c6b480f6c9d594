-- Copy rows of the same shard of another crawl, unchanged but for crawl_id, into the partition
-- being written (linkpipe.lib.storage.write_partition, inside its transaction).
-- Parameters: new crawl_id, source crawl_id, shard. {table} and {key} are substituted from the
-- schema only (storage.SHARD_TABLES, storage.table_columns); the chosen keys are the view
-- _linkpipe_copy_keys(key).
INSERT INTO {table}
SELECT * REPLACE (CAST(? AS VARCHAR) AS crawl_id) FROM {table}
WHERE crawl_id = ? AND shard = ? AND {key} IN (SELECT key FROM _linkpipe_copy_keys);
