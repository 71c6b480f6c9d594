SELECT url, embedding FROM page_embeddings WHERE crawl_id = ? ORDER BY url;
