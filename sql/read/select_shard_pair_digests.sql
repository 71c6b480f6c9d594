-- The target and pair digest of each candidate_pairs row of a crawl's shard, by source
-- (? = crawl_id, shard); rows written before pair digests have none (NULL).
SELECT source_url, target_url, pair_digest FROM candidate_pairs
WHERE crawl_id = ? AND shard = ?
ORDER BY source_url;
