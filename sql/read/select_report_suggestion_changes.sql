-- `linkpipe report`: what happened to the suggestions between two crawls (the rows of
-- v_suggestion_changes for any pair) but the ones still open, which the report's suggestion
-- table shows: implemented first, then new, then disappeared; and how many in all.
-- ? = old crawl_id, ? = new crawl_id, ? = most rows.
SELECT status, why, source_url, target_url, suggested_anchor, implemented_anchor, old_rank,
       new_rank, old_score, new_score, decision, count(*) OVER () AS total
FROM suggestion_changes(?, ?)
WHERE status <> 'still_open'
ORDER BY CASE status WHEN 'implemented' THEN 0 WHEN 'new' THEN 1 ELSE 2 END,
         source_url, target_url
LIMIT ?;
