SELECT i.url, coalesce(s.title, i.title) AS title, i.page_type,
       coalesce(m.unique_content_inlinks, 0) AS content_inlinks,
       m.click_depth, coalesce(m.link_score, 0) AS link_score,
       coalesce(m.is_orphan, false) AS is_orphan, coalesce(m.is_deep, false) AS is_deep,
       coalesce(p.linkable, 0) > 0 AS has_prose
FROM indexable_pages i
LEFT JOIN page_link_metrics m ON m.crawl_id = i.crawl_id AND m.url = i.url
LEFT JOIN page_summaries s ON s.crawl_id = i.crawl_id AND s.url = i.url
LEFT JOIN (
    SELECT url, count(*) AS linkable
    FROM page_sentences
    WHERE crawl_id = ? AND list_contains(?, block_kind)
    GROUP BY url
) p ON p.url = i.url
WHERE i.crawl_id = ? AND i.indexable;
