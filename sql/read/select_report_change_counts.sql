-- `linkpipe report`: the crawl diff in numbers: suggestions by status and links by change.
-- ? = old crawl_id, ? = new crawl_id (both twice).
SELECT kind, change, n FROM (
    SELECT 'suggestions' AS kind, status AS change, count(*) AS n
    FROM suggestion_changes(?, ?) GROUP BY ALL
    UNION ALL
    SELECT 'links' AS kind, change, count(*) AS n
    FROM link_changes(?, ?) GROUP BY ALL
)
ORDER BY kind DESC,
         CASE change WHEN 'implemented' THEN 0 WHEN 'new' THEN 1 WHEN 'disappeared' THEN 2
                     WHEN 'added' THEN 0 WHEN 'removed' THEN 1 ELSE 3 END,
         change;
