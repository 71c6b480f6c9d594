-- The rows of one what-if scenario of a crawl. Params: crawl_id, scenario.
DELETE FROM whatif_pages WHERE crawl_id = ? AND scenario = ?;
