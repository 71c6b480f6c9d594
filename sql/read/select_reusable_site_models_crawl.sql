-- The latest other crawl whose site models were computed from the very same inputs (the same
-- site_model_inputs digest): its site_models, site_terms, site_page_terms and site_names rows
-- are this crawl's.
-- Parameters: crawl_id, digest.
SELECT i.crawl_id
FROM site_model_inputs i JOIN crawls c USING (crawl_id)
WHERE i.crawl_id <> ? AND i.digest = ?
ORDER BY c.created_at DESC, i.crawl_id DESC
LIMIT 1;
