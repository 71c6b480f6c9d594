-- Every summarised page of the crawl with its main text, in URL order, a batch after a URL.
SELECT url, title, h1, slug_words, main_text FROM page_summaries
WHERE crawl_id = ? AND summary <> '' AND url > ? ORDER BY url LIMIT ?;
