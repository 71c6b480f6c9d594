-- A crawl's stored index without its bytes, and a hash of them (which build it is).
SELECT urls, index_kind, recall_at_k, recall_k, build_seconds, hash(index_blob) AS blob_hash
FROM ann_indexes WHERE crawl_id = ?;
