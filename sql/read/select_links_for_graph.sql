SELECT source_url, target_url, anchor_text, position, nofollow, internal
FROM crawl_links WHERE crawl_id = ? AND internal;
