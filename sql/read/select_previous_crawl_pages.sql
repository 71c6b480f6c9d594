-- The latest earlier crawl of the same start URL: what a conditional recrawl can reuse.
SELECT p.url, p.etag, p.last_modified, p.content_hash, p.html_z
FROM crawl_pages p
WHERE p.crawl_id = (
    SELECT c.crawl_id FROM crawls c
    WHERE c.start_url = ? AND c.crawl_id <> ?
      AND c.crawl_id IN (SELECT DISTINCT crawl_id FROM crawl_pages)
    ORDER BY c.created_at DESC, c.crawl_id DESC LIMIT 1)
  AND p.status = 200 AND (p.etag <> '' OR p.last_modified <> '');
