SELECT url, start_offset, end_offset FROM page_text_links WHERE crawl_id = ? AND shard = ?
ORDER BY url, start_offset, end_offset;
