SELECT source_url, target_url, anchor_text, sentence, score, confidence, reason
FROM link_opportunities WHERE crawl_id = ?
ORDER BY (anchor_text IS NULL), score DESC LIMIT ?;
