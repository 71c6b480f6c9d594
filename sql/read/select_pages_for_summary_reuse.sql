-- The shard's indexable pages, each with its reusable page_summaries row of the previous crawl
-- (lib/stages/page_summaries.py, "reuse key"): same URL, same content_hash, same HTML presence
-- and the same title, H1 and meta description as crawled, made by the same extractor
-- (reusable), with that row's cleaned title and extraction error; the HTML is read only for
-- pages without such a row.
-- Parameters: previous crawl_id (NULL: none), shard, extractor digest, crawl_id, shard.
WITH previous AS (
    SELECT s.url, s.content_hash, s.title, s.extraction_error,
           p.title AS crawled_title, p.h1, p.meta_description, p.html_z IS NULL AS without_html
    FROM page_summaries s
    JOIN crawl_pages_html p ON p.crawl_id = s.crawl_id AND p.url = s.url
    WHERE s.crawl_id = ? AND s.shard = ? AND s.extractor = ?
)
SELECT p.url, p.title, p.h1, p.meta_description, p.content_hash,
       prev.url IS NOT NULL AS reusable,
       prev.title AS previous_title,
       prev.extraction_error AS previous_extraction_error,
       CASE WHEN prev.url IS NULL THEN p.html_z END AS html_z
FROM indexable_pages i
JOIN crawl_pages_html p ON p.crawl_id = i.crawl_id AND p.url = i.url
LEFT JOIN previous prev
       ON prev.url = p.url
      AND prev.content_hash = p.content_hash
      AND prev.crawled_title IS NOT DISTINCT FROM p.title
      AND prev.h1 IS NOT DISTINCT FROM p.h1
      AND prev.meta_description IS NOT DISTINCT FROM p.meta_description
      AND prev.without_html = (p.html_z IS NULL)
WHERE i.crawl_id = ? AND i.shard = ? AND i.indexable
ORDER BY p.url;
