-- Parameters: crawl_id, shard. Table name is substituted from linkpipe.lib.storage.TABLES only.
DELETE FROM {table} WHERE crawl_id = ? AND shard = ?;
