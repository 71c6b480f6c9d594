-- The pages whose incoming links (source, position or anchor text) differ between a crawl
-- ($1) and an earlier one ($2): every link edge of one that the other lacks, counted with
-- multiplicity, gives its resolved target.
WITH now AS (
    SELECT source_url, resolved_url, anchor_text, position FROM link_edges WHERE crawl_id = $1
),
before AS (
    SELECT source_url, resolved_url, anchor_text, position FROM link_edges WHERE crawl_id = $2
)
SELECT DISTINCT resolved_url FROM (
    (SELECT * FROM now EXCEPT ALL SELECT * FROM before)
    UNION ALL
    (SELECT * FROM before EXCEPT ALL SELECT * FROM now)
);
