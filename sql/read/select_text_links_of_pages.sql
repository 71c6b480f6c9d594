-- The spans of the links in the main text of some of a crawl's pages (see
-- select_source_texts_of_pages.sql). Parameters: crawl_id, the pages' URLs.
SELECT url, start_offset, end_offset FROM page_text_links
WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))
ORDER BY url, start_offset, end_offset;
