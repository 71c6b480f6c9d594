-- The full candidate rows (evidence and placements) of the pairs listed in the registered
-- view _linkpipe_pairs (source_url, target_url) of a crawl.
-- Parameters: crawl_id.
SELECT c.* EXCLUDE (crawl_id, shard)
FROM candidate_pairs c
JOIN _linkpipe_pairs k ON k.source_url = c.source_url AND k.target_url = c.target_url
WHERE c.crawl_id = ?;
