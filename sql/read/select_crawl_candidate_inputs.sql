-- The candidate_inputs digest of each shard of a crawl, by shard.
-- Parameters: crawl_id.
SELECT shard, digest FROM candidate_inputs WHERE crawl_id = ? ORDER BY shard;
