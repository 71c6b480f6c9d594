-- `linkpipe report`: the orphans of a crawl, as v_orphan_pages shows them for the latest one
-- (indexable first; an excluded orphan carries its reason). ? = crawl_id.
SELECT m.url, i.title, m.indexable, i.reason AS excluded_reason, i.detail AS excluded_detail,
       m.in_sitemap, m.content_inlinks, m.nav_inlinks
FROM page_link_metrics m
LEFT JOIN indexable_pages i ON i.crawl_id = m.crawl_id AND i.url = m.url
WHERE m.is_orphan AND m.crawl_id = ?
ORDER BY m.indexable DESC, m.url;
