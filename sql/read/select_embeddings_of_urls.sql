-- The embeddings of the given pages of a crawl (? = crawl_id, list of URLs), by URL.
SELECT url, embedding FROM page_embeddings
WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))
ORDER BY url;
