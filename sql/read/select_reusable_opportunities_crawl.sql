-- The latest other crawl whose opportunities were computed from the very same inputs (the
-- same opportunity_inputs digest): its link_opportunities, cannibalisation_pairs and
-- scoring_weights rows are this crawl's.
-- Parameters: crawl_id, digest.
SELECT i.crawl_id
FROM opportunity_inputs i JOIN crawls c USING (crawl_id)
WHERE i.crawl_id <> ? AND i.digest = ?
ORDER BY c.created_at DESC, i.crawl_id DESC
LIMIT 1;
