-- Every URL of a crawl's candidate pairs, source or target, once each, sorted (the codes of
-- a PairTable: linkpipe.lib.links.pair_table). Parameters: crawl_id.
SELECT url FROM (
    SELECT source_url AS url FROM candidate_pairs WHERE crawl_id = $1
    UNION
    SELECT target_url AS url FROM candidate_pairs WHERE crawl_id = $1
)
ORDER BY url;
