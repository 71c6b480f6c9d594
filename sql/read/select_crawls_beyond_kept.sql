-- What `--keep-crawls N` prunes and what the published copy leaves out, per start URL. Finished
-- crawls (complete, or partial: every step asked for ran, e.g. `linkpipe crawl`) beyond the ?
-- most recent finished ones (newest first by created_at, then crawl_id), except the newest
-- complete crawl, which the views show; and unfinished crawls (failed, interrupted, killed,
-- running, registered) older than the newest finished one. A crawl newer than every finished
-- one is kept, so neither failures nor crawl-only runs ever push out the data the views show.
WITH runs AS (
    SELECT c.crawl_id, c.start_url, c.created_at,
           coalesce(r.status IN ('complete', 'partial'), false) AS finished,
           coalesce(r.status = 'complete', false) AS complete
    FROM crawls c LEFT JOIN crawl_runs r USING (crawl_id)
), ranked AS (
    SELECT *,
           row_number() OVER (
               PARTITION BY start_url, finished ORDER BY created_at DESC, crawl_id DESC
           ) AS recency,
           row_number() OVER (
               PARTITION BY start_url, complete ORDER BY created_at DESC, crawl_id DESC
           ) AS complete_recency,
           max(CASE WHEN finished THEN created_at END) OVER (PARTITION BY start_url)
               AS newest_finished
    FROM runs
)
SELECT crawl_id FROM ranked
WHERE (finished AND recency > ? AND NOT (complete AND complete_recency = 1))
   OR (NOT finished AND newest_finished IS NOT NULL AND created_at < newest_finished)
ORDER BY crawl_id;
