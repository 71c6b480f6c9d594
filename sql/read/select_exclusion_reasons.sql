-- Pages of a crawl by indexability reason, most common first (? = crawl_id): why a crawl
-- has no page to suggest links for.
SELECT coalesce(reason, 'indexable') AS reason, count(*) AS pages
FROM indexable_pages WHERE crawl_id = ?
GROUP BY ALL ORDER BY pages DESC, reason;
