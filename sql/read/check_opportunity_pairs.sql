-- Asset check of link_opportunities: no page is suggested a link to itself, and no pair is
-- suggested whose source already links the target from its content (link_edges, position
-- 'content', target resolved through redirects and canonicals) (? = crawl_id).
WITH p AS (SELECT ?::VARCHAR AS crawl_id),
pairs AS (SELECT o.source_url, o.target_url FROM link_opportunities o JOIN p USING (crawl_id)),
linked AS (
    SELECT DISTINCT e.source_url, e.resolved_url AS target_url
    FROM link_edges e JOIN p USING (crawl_id) WHERE e.position = 'content'
),
problems AS (
    SELECT source_url, target_url, 'self' AS problem FROM pairs WHERE source_url = target_url
    UNION ALL
    SELECT source_url, target_url, 'already linked' FROM pairs JOIN linked USING (source_url, target_url)
    WHERE source_url <> target_url
)
SELECT (SELECT count(*) FROM pairs) AS pairs,
       count(*) FILTER (WHERE problem = 'self') AS self_pairs,
       count(*) FILTER (WHERE problem = 'already linked') AS already_linked_pairs,
       (list(problem || ': ' || source_url || ' -> ' || target_url
             ORDER BY source_url, target_url))[1:5] AS examples
FROM problems;
