-- Stored full placements of kept pairs by anchor key, from any kept crawl (a key determines
-- its placements: lib/links/anchor_reuse.py), one row a key.
-- Parameters: the anchor keys.
SELECT anchor_key, anchor_text, anchor_start, anchor_end, sentence, sentence_start,
       paragraph_idx, anchor_source, anchor_quality, anchor_alternatives
FROM kept_placements
WHERE anchor_key IN (SELECT unnest(?::VARCHAR[]))
QUALIFY row_number() OVER (PARTITION BY anchor_key ORDER BY crawl_id) = 1;
