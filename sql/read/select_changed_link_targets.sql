-- The pages whose incoming links (source, position or anchor text) differ between a crawl
-- ($1) and an earlier one ($2): every link edge of one that the other lacks, counted with
-- multiplicity, gives its resolved target. Only the sources whose edges differ as a whole
-- (order-independent sum of edge hashes, and count) are compared edge by edge.
WITH sums AS (
    SELECT crawl_id, source_url, sum(hash(resolved_url, anchor_text, position)::HUGEINT) AS h,
           count(*) AS n
    FROM link_edges WHERE crawl_id IN ($1, $2) GROUP BY crawl_id, source_url
),
changed AS (
    SELECT source_url
    FROM (SELECT * FROM sums WHERE crawl_id = $1) a
    FULL JOIN (SELECT * FROM sums WHERE crawl_id = $2) b USING (source_url)
    WHERE a.h IS DISTINCT FROM b.h OR a.n IS DISTINCT FROM b.n
),
now AS (
    SELECT source_url, resolved_url, anchor_text, position FROM link_edges
    WHERE crawl_id = $1 AND source_url IN (SELECT source_url FROM changed)
),
before AS (
    SELECT source_url, resolved_url, anchor_text, position FROM link_edges
    WHERE crawl_id = $2 AND source_url IN (SELECT source_url FROM changed)
)
SELECT DISTINCT resolved_url FROM (
    (SELECT * FROM now EXCEPT ALL SELECT * FROM before)
    UNION ALL
    (SELECT * FROM before EXCEPT ALL SELECT * FROM now)
);
