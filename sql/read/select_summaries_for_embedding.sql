SELECT url, summary, summary_hash FROM page_summaries
WHERE crawl_id = ? AND shard = ? AND summary <> '' ORDER BY url;
