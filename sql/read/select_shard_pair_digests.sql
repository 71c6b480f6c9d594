-- The pair digest of each candidate_pairs row of a crawl's shard, by source (? = crawl_id,
-- shard); rows written before pair digests have none and are left out.
SELECT source_url, pair_digest FROM candidate_pairs
WHERE crawl_id = ? AND shard = ? AND pair_digest IS NOT NULL;
