-- The digest of the inputs of a crawl's site models (site_model_inputs). Parameter: crawl_id.
SELECT digest FROM site_model_inputs WHERE crawl_id = ?;
