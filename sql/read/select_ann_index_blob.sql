-- A crawl's stored index bytes.
SELECT index_blob FROM ann_indexes WHERE crawl_id = ?;
