-- A crawl-keyed table into the new published copy, without the crawls left out (the view
-- _linkpipe_left_out(crawl_id)). {table} is substituted from storage.CRAWL_TABLES,
-- storage.SHARD_TABLES or "crawls" only;
-- {columns} is "*" or "* EXCLUDE (...)" of retention.BOOKKEEPING_COLUMNS (published as NULL).
INSERT INTO published.{table} BY NAME
SELECT {columns} FROM {table}
WHERE crawl_id NOT IN (SELECT crawl_id FROM _linkpipe_left_out);
