-- The placements (anchor_* columns, sentence, alternatives) of the candidate pairs listed in
-- the registered view _linkpipe_pairs (source_url, target_url) of a crawl.
-- Parameters: crawl_id.
SELECT c.source_url, c.target_url, c.anchor_text, c.anchor_start, c.anchor_end,
       c.anchor_source, c.anchor_quality, c.sentence, c.sentence_start, c.paragraph_idx,
       c.anchor_alternatives
FROM candidate_pairs c
JOIN _linkpipe_pairs k ON k.source_url = c.source_url AND k.target_url = c.target_url
WHERE c.crawl_id = ?;
