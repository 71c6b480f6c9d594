SELECT o.source_url, o.target_url, o.anchor_text, o.anchor_start, o.anchor_end, o.sentence,
       s.main_text
FROM link_opportunities o
JOIN page_summaries s ON s.crawl_id = o.crawl_id AND s.url = o.source_url
WHERE o.crawl_id = ? AND o.placement = 'in_sentence'
ORDER BY o.source_url, o.rank;
