SELECT p.url, p.title, p.h1, p.meta_description, p.content_hash, p.html_z
FROM indexable_pages i JOIN crawl_pages p ON p.crawl_id = i.crawl_id AND p.url = i.url
WHERE i.crawl_id = ? AND i.shard = ? AND i.indexable ORDER BY p.url;
