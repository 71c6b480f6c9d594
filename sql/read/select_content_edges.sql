-- Existing links between pages, targets resolved through redirects and canonicals.
SELECT source_url, resolved_url, position, anchor_text FROM link_edges WHERE crawl_id = ?;
