-- `linkpipe report`: every page of a crawl's link graph with its title and type (inlinks now
-- and after the suggestions, deep pages). ? = crawl_id.
SELECT m.url, i.title, i.page_type, coalesce(m.indexable, false) AS indexable,
       m.unique_content_inlinks, m.content_inlinks, m.nav_inlinks, m.click_depth,
       m.pagerank, m.is_orphan, m.is_deep, m.in_sitemap
FROM page_link_metrics m
LEFT JOIN indexable_pages i ON i.crawl_id = m.crawl_id AND i.url = m.url
WHERE m.crawl_id = ?
ORDER BY m.url;
