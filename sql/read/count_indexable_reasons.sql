-- How many of a crawl's URLs each indexability reason excludes ("indexable": those it keeps).
-- Parameters: crawl_id.
SELECT coalesce(reason, 'indexable') AS reason, count(*) AS pages
FROM indexable_pages WHERE crawl_id = ? GROUP BY ALL ORDER BY ALL;
