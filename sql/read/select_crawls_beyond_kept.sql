-- Crawls older than the ? most recent crawls of their start URL (newest first by created_at,
-- then crawl_id): what `--keep-crawls N` prunes and what the published copy leaves out.
SELECT crawl_id FROM (
    SELECT crawl_id,
           row_number() OVER (
               PARTITION BY start_url ORDER BY created_at DESC, crawl_id DESC
           ) AS recency
    FROM crawls
)
WHERE recency > ?
ORDER BY crawl_id;
