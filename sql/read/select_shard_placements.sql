-- The names-only anchor placements of a shard's candidate pairs by name key
-- (links/anchor_reuse.py), returned as the anchor_key column the candidate step looks them up by.
-- Parameters: crawl_id, shard.
SELECT name_key AS anchor_key, anchor_text, anchor_start, anchor_end, sentence, sentence_start,
       paragraph_idx, anchor_source, anchor_quality, anchor_alternatives,
       TRUE AS anchors_complete  -- a candidate row's names: every one
FROM candidate_pairs
WHERE crawl_id = ? AND shard = ? AND name_key IS NOT NULL;
