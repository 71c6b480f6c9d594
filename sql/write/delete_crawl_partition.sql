-- Parameters: crawl_id. Table name is substituted from linkpipe.lib.storage.TABLES only.
DELETE FROM {table} WHERE crawl_id = ?;
