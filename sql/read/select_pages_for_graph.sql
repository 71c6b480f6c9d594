SELECT p.url, p.status, p.final_url, p.canonical, p.redirect_loop, p.in_sitemap,
       coalesce(i.indexable, false) AS indexable
FROM crawl_pages p LEFT JOIN indexable_pages i ON i.crawl_id = p.crawl_id AND i.url = p.url
WHERE p.crawl_id = ? ORDER BY p.url;
