-- A crawl-keyed table's rows of the crawls to add to the published copy being updated (the
-- view _linkpipe_fresh(crawl_id)). {table} is substituted from storage.CRAWL_TABLES,
-- storage.SHARD_TABLES or "crawls" only;
-- {columns} is "*" or "* EXCLUDE (...)" of retention.BOOKKEEPING_COLUMNS (published as NULL).
INSERT INTO published.{table} BY NAME
SELECT {columns} FROM {table} WHERE crawl_id IN (SELECT crawl_id FROM _linkpipe_fresh);
