-- The TF-IDF rows of the given pages of a crawl (? = crawl_id, list of URLs), by URL.
SELECT url, term_ids, weights FROM site_page_terms
WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))
ORDER BY url;
