-- The crawls the attached published copy holds.
SELECT crawl_id FROM published.crawls ORDER BY crawl_id;
