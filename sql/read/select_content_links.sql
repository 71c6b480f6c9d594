-- Existing links in the main content, targets resolved through redirects and canonicals.
SELECT source_url, resolved_url, anchor_text FROM link_edges
WHERE crawl_id = ? AND position = 'content';
