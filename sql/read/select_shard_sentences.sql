SELECT url, paragraph_idx, start_offset, end_offset, block_kind FROM page_sentences
WHERE crawl_id = ? AND shard = ? ORDER BY url, start_offset;
