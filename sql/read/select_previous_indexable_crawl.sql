-- The crawl whose indexable_pages facts this crawl may reuse: the latest earlier crawl of the
-- same start URL that has indexable_pages rows.
-- Parameters: crawl_id.
SELECT c.crawl_id
FROM crawls c JOIN crawls cur ON cur.crawl_id = ? AND c.start_url = cur.start_url
WHERE c.crawl_id <> cur.crawl_id
  AND (c.created_at < cur.created_at
       OR (c.created_at = cur.created_at AND c.crawl_id < cur.crawl_id))
  AND c.crawl_id IN (SELECT DISTINCT crawl_id FROM indexable_pages)
ORDER BY c.created_at DESC, c.crawl_id DESC
LIMIT 1;
