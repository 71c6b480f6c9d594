-- The source pages of a shard's candidate_pairs rows (? = crawl_id, shard).
SELECT DISTINCT source_url FROM candidate_pairs WHERE crawl_id = ? AND shard = ?;
