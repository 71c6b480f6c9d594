-- `linkpipe report`: the crawl a report shows, with how its run went and the complete crawl
-- of the same start URL before it, which the crawl diff compares it with (the rule of
-- v_compared_crawls, for any crawl). ? = crawl_id.
WITH chosen AS (
    SELECT c.crawl_id, c.start_url, c.source, c.config_json, c.created_at,
           coalesce(r.status, 'registered') AS status
    FROM crawls c LEFT JOIN crawl_runs r USING (crawl_id)
    WHERE c.crawl_id = ?
)
SELECT chosen.*, (
    SELECT prev.crawl_id FROM crawls prev JOIN crawl_runs r ON r.crawl_id = prev.crawl_id
    WHERE r.status = 'complete'
      AND prev.start_url IS NOT DISTINCT FROM chosen.start_url
      AND (prev.created_at < chosen.created_at
           OR (prev.created_at = chosen.created_at AND prev.crawl_id < chosen.crawl_id))
    ORDER BY prev.created_at DESC, prev.crawl_id DESC
    LIMIT 1
) AS previous_crawl_id
FROM chosen;
