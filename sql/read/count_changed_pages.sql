-- How much page-level work a crawl brings: its pages with HTML (every page of an import, which
-- has none), and those of them whose HTML (content hash) the latest earlier crawl of the same
-- start URL did not have at that URL (every page of an import counts as changed).
-- Parameters: crawl_id.
WITH cur AS (SELECT crawl_id, start_url, created_at, source FROM crawls WHERE crawl_id = $1),
previous AS (
    SELECT c.crawl_id FROM crawls c, cur
    WHERE c.start_url = cur.start_url AND c.crawl_id <> cur.crawl_id
      AND (c.created_at < cur.created_at
           OR (c.created_at = cur.created_at AND c.crawl_id < cur.crawl_id))
      AND c.crawl_id IN (SELECT DISTINCT crawl_id FROM crawl_pages)
    ORDER BY c.created_at DESC, c.crawl_id DESC
    LIMIT 1
),
pages AS (
    SELECT p.url, p.content_hash FROM crawl_pages p, cur
    WHERE p.crawl_id = $1
      AND (coalesce(p.content_hash, '') <> '' OR coalesce(cur.source, 'crawler') <> 'crawler')
)
SELECT count(*) AS pages,
       count(*) FILTER (WHERE q.url IS NULL) AS changed
FROM pages p
LEFT JOIN crawl_pages q
  ON q.crawl_id = (SELECT crawl_id FROM previous) AND q.url = p.url
 AND coalesce(p.content_hash, '') <> '' AND q.content_hash = p.content_hash;
