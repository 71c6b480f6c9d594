-- The main texts of some of a crawl's pages (lib/stages/kept_anchors.py: the sources whose
-- kept pairs are placed). Parameters: crawl_id, the pages' URLs.
SELECT url, main_text FROM page_summaries
WHERE crawl_id = ? AND url IN (SELECT unnest(?::VARCHAR[]))
ORDER BY url;
