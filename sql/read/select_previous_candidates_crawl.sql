-- The crawl whose anchor placements a shard of this crawl may reuse: the latest earlier crawl
-- of the same start URL that has candidate_pairs rows in the shard.
-- Parameters: crawl_id, shard.
SELECT c.crawl_id
FROM crawls c JOIN crawls cur ON cur.crawl_id = ? AND c.start_url = cur.start_url
WHERE c.crawl_id <> cur.crawl_id
  AND (c.created_at < cur.created_at
       OR (c.created_at = cur.created_at AND c.crawl_id < cur.crawl_id))
  AND c.crawl_id IN (SELECT DISTINCT crawl_id FROM candidate_pairs WHERE shard = ?)
ORDER BY c.created_at DESC, c.crawl_id DESC
LIMIT 1;
