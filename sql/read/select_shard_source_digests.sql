-- The row digest of each source of a crawl's candidate shard (? = crawl_id, shard).
SELECT source_url, digest FROM candidate_sources WHERE crawl_id = ? AND shard = ?;
