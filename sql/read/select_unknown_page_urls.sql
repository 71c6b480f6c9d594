-- The URLs of the list parameter that are no page of any crawl (review set / import warn on
-- decisions about them).
SELECT DISTINCT u.url
FROM unnest(CAST(? AS VARCHAR[])) AS u(url)
WHERE NOT EXISTS (SELECT 1 FROM crawl_pages p WHERE p.url = u.url)
ORDER BY u.url;
