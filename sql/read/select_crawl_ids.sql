-- Every registered crawl.
SELECT crawl_id FROM crawls ORDER BY crawl_id;
