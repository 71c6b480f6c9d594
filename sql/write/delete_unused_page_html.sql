-- HTML no crawl has any longer (run after old crawls are deleted).
DELETE FROM page_html h
WHERE NOT EXISTS (SELECT 1 FROM crawl_pages p WHERE p.content_hash = h.content_hash);
