-- Distribution of candidate_pairs.semantic_sim of one crawl x shard (candidates only: rows of
-- pairs already linked are labelled data) (? = crawl_id, shard):
-- counts per bin (a map from each bin's upper bound, bins of "nice" equal width) and summary
-- figures. No row when the shard has no pairs.
WITH p AS (SELECT ?::VARCHAR AS crawl_id, ?::INTEGER AS shard),
v AS (
    SELECT c.semantic_sim AS x FROM candidate_pairs c JOIN p USING (crawl_id, shard)
    WHERE c.semantic_sim IS NOT NULL AND c.already_linked_content IS NOT TRUE
),
r AS (SELECT min(x) AS lo, max(x) AS hi FROM v)
SELECT histogram(x, equi_width_bins(r.lo, r.hi, 20, true)) AS bins,
       count(*) AS n, r.lo AS min, r.hi AS max, avg(x) AS mean, median(x) AS median,
       quantile_cont(x, 0.9) AS p90
FROM v, r
GROUP BY r.lo, r.hi;
