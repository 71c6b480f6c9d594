-- The given summarised pages of a crawl with their main text, in URL order.
-- Parameters: crawl_id, the URLs.
SELECT url, title, h1, slug_words, main_text FROM page_summaries
WHERE crawl_id = ? AND summary <> '' AND url IN (SELECT unnest(?::VARCHAR[])) ORDER BY url;
