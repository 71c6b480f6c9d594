-- Rows of crawls to drop or copy again from the published copy being updated (the view
-- _linkpipe_stale(crawl_id)). {table} is substituted from storage.CRAWL_TABLES,
-- storage.SHARD_TABLES, "crawls" or a table of the published copy's own list only.
DELETE FROM published.{table} WHERE crawl_id IN (SELECT crawl_id FROM _linkpipe_stale);
