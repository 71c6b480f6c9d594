SELECT index_blob, urls, index_kind, recall_at_k, recall_k, build_seconds
FROM ann_indexes WHERE crawl_id = ?;
