-- `linkpipe whatif --top N`: the N best suggestions of each source page of the crawl, pairs
-- editors rejected left out (suggestions never link pages already linked in content).
-- Params: crawl_id, N.
SELECT source_url, target_url, false AS already_linked
FROM (
    SELECT o.source_url, o.target_url,
           row_number() OVER (PARTITION BY o.source_url ORDER BY o.rank, o.target_url) AS kept
    FROM link_opportunities o
    LEFT JOIN link_decisions d ON d.source_url = o.source_url AND d.target_url = o.target_url
    WHERE o.crawl_id = ? AND (d.decision IS NULL OR d.decision <> 'rejected')
)
WHERE kept <= ?
ORDER BY source_url, target_url;
