-- The sentences of some of a crawl's pages (see select_source_texts_of_pages.sql).
-- Parameters: crawl_id, the pages' URLs.
SELECT url, paragraph_idx, start_offset, end_offset, block_kind FROM page_sentences
WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))
ORDER BY url, start_offset;
