-- The latest earlier crawl of the same start URL: what a conditional recrawl can reuse (the
-- validators, the stored HTML and the crawler's stored parse of each page); ``carry``: the
-- crawl kept them in its own rows (earlier code), not by content.
WITH previous AS (
    SELECT c.crawl_id FROM crawls c
    WHERE c.start_url = ? AND c.crawl_id <> ?
      AND c.crawl_id IN (SELECT DISTINCT crawl_id FROM crawl_pages)
    ORDER BY c.created_at DESC, c.crawl_id DESC LIMIT 1
)
SELECT p.url, p.etag, p.last_modified, p.content_hash,
       coalesce(p.html_z, h.html_z) AS html_z,
       coalesce(s.parse_z, o.parse_z) AS parse_z,
       p.html_z IS NOT NULL AS carry
FROM crawl_pages p
LEFT JOIN page_html h ON h.content_hash = p.content_hash
LEFT JOIN page_parses s ON s.url = p.url AND s.content_hash = p.content_hash
LEFT JOIN crawl_parses o ON o.crawl_id = p.crawl_id AND o.url = p.url
WHERE p.crawl_id = (SELECT crawl_id FROM previous)
  AND p.status = 200 AND (p.etag <> '' OR p.last_modified <> '');
