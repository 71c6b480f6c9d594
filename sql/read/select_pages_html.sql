-- The stored HTML of some pages of a crawl (in page_html by content; in the page's own row
-- for earlier code's crawls). Parameters: crawl_id, list of URLs.
SELECT p.url, coalesce(p.html_z, h.html_z) AS html_z
FROM crawl_pages p LEFT JOIN page_html h ON h.content_hash = p.content_hash
WHERE p.crawl_id = ? AND list_contains(?, p.url);
