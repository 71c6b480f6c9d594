-- Parses of a URL and content no crawl has any longer (run after old crawls are deleted).
DELETE FROM page_parses s
WHERE NOT EXISTS (
    SELECT 1 FROM crawl_pages p WHERE p.url = s.url AND p.content_hash = s.content_hash
);
