-- The latest earlier crawl of the same start URL: what a conditional recrawl can reuse (the
-- validators, the stored HTML and the crawler's stored parse of each page).
WITH previous AS (
    SELECT c.crawl_id FROM crawls c
    WHERE c.start_url = ? AND c.crawl_id <> ?
      AND c.crawl_id IN (SELECT DISTINCT crawl_id FROM crawl_pages)
    ORDER BY c.created_at DESC, c.crawl_id DESC LIMIT 1
)
SELECT p.url, p.etag, p.last_modified, p.content_hash, p.html_z, s.parse_z
FROM crawl_pages p
LEFT JOIN crawl_parses s ON s.crawl_id = p.crawl_id AND s.url = p.url
WHERE p.crawl_id = (SELECT crawl_id FROM previous)
  AND p.status = 200 AND (p.etag <> '' OR p.last_modified <> '');
