SELECT * EXCLUDE (crawl_id, shard) FROM candidate_pairs WHERE crawl_id = ?;
