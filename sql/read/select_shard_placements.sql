-- The anchor placements of a shard's candidate pairs by anchor key (links/anchor_reuse.py).
-- Parameters: crawl_id, shard.
SELECT anchor_key, anchor_text, anchor_start, anchor_end, sentence, sentence_start,
       paragraph_idx, anchor_source, anchor_quality, anchor_alternatives,
       TRUE AS anchors_complete  -- a candidate row's names: every one
FROM candidate_pairs
WHERE crawl_id = ? AND shard = ? AND anchor_key IS NOT NULL;
