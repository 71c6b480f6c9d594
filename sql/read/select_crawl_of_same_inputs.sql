-- The latest other crawl whose rows of a site-level stage were computed from the very same
-- inputs (the same digest in the stage's inputs table): its rows are this crawl's
-- (lib/stages/common.py, copy_crawl_of_same_inputs). {table} is substituted from
-- storage.CRAWL_TABLES only (site_model_inputs, opportunity_inputs, graph_inputs,
-- cluster_inputs, indexable_inputs).
-- Parameters: crawl_id, digest.
SELECT i.crawl_id
FROM {table} i JOIN crawls c USING (crawl_id)
WHERE i.crawl_id <> ? AND i.digest = ?
ORDER BY c.created_at DESC, i.crawl_id DESC
LIMIT 1;
