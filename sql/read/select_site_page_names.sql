-- The names of every summarised page (no main text), in URL order.
SELECT url, title, h1, slug_words FROM page_summaries
WHERE crawl_id = ? AND summary <> '' ORDER BY url;
