-- The source pages of a crawl's candidate shard in order, with the characters of each one's
-- main text (lib/stages/source_texts.py). Parameters: crawl_id, shard.
SELECT url, length(coalesce(main_text, '')) AS chars FROM page_summaries
WHERE crawl_id = ? AND shard = ?
ORDER BY url;
