SELECT url, main_text FROM page_summaries WHERE crawl_id = ? AND shard = ? ORDER BY url;
