-- Distribution of link_opportunities.score of one crawl (? = crawl_id): counts per bin (a map
-- from each bin's upper bound, bins of "nice" equal width) and summary figures. No row when
-- the crawl has no suggestions.
WITH p AS (SELECT ?::VARCHAR AS crawl_id),
v AS (
    SELECT o.score AS x FROM link_opportunities o JOIN p USING (crawl_id)
    WHERE o.score IS NOT NULL
),
r AS (SELECT min(x) AS lo, max(x) AS hi FROM v)
SELECT histogram(x, equi_width_bins(r.lo, r.hi, 20, true)) AS bins,
       count(*) AS n, r.lo AS min, r.hi AS max, avg(x) AS mean, median(x) AS median,
       quantile_cont(x, 0.9) AS p90
FROM v, r
GROUP BY r.lo, r.hi;
