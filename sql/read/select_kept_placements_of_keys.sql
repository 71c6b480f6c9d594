-- Stored placements of kept pairs by anchor key, from any kept crawl (a key determines
-- its placements: lib/links/anchor_reuse.py), one row a key: every placement of the key where
-- a crawl stored them all (NULL: rows of code that always did), else the longest of the first
-- ones stored (crawls may have placed a key's first placements to different depths).
-- Parameters: the anchor keys.
SELECT anchor_key, anchor_text, anchor_start, anchor_end, sentence, sentence_start,
       paragraph_idx, anchor_source, anchor_quality, anchor_alternatives,
       coalesce(anchors_complete, TRUE) AS anchors_complete
FROM kept_placements
WHERE anchor_key IN (SELECT unnest(?::VARCHAR[]))
QUALIFY row_number() OVER (
    PARTITION BY anchor_key
    ORDER BY coalesce(anchors_complete, TRUE) DESC,
             (anchor_text IS NOT NULL)::INTEGER
             + coalesce(json_array_length(anchor_alternatives), 0) DESC, crawl_id
) = 1;
