-- `linkpipe report`: links added, removed or re-anchored between two crawls (the rows of
-- v_link_changes for any pair), and how many in all. ? = old crawl_id, ? = new crawl_id,
-- ? = most rows.
SELECT change, position, source_url, target_url, old_anchor_text, new_anchor_text, why,
       count(*) OVER () AS total
FROM link_changes(?, ?)
ORDER BY change, position, source_url, target_url
LIMIT ?;
