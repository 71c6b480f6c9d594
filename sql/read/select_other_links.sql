-- Existing navigation, header, footer and aside links (resolved targets): only looked up.
SELECT source_url, resolved_url FROM link_edges WHERE crawl_id = ? AND position <> 'content';
