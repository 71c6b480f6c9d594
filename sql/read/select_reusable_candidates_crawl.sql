-- The latest other crawl whose shard was computed from the very same inputs (the same
-- candidate_inputs digest): its candidate_pairs rows of the shard are this crawl's.
-- Parameters: crawl_id, shard, digest.
SELECT i.crawl_id
FROM candidate_inputs i JOIN crawls c USING (crawl_id)
WHERE i.crawl_id <> ? AND i.shard = ? AND i.digest = ?
ORDER BY c.created_at DESC, i.crawl_id DESC
LIMIT 1;
