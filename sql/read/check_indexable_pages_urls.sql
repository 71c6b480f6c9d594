-- Asset check of indexable_pages: one row per URL of the crawl (? = crawl_id).
WITH per_url AS (
    SELECT url, count(*) AS copies FROM indexable_pages WHERE crawl_id = ? GROUP BY url
)
SELECT count(*) AS urls,
       coalesce(sum(copies), 0) AS rows,
       count(*) FILTER (WHERE copies > 1) AS duplicated_urls,
       (list(url ORDER BY url) FILTER (WHERE copies > 1))[1:5] AS examples
FROM per_url;
