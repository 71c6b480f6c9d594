SELECT url, term_ids, weights FROM site_page_terms WHERE crawl_id = ? ORDER BY url;
