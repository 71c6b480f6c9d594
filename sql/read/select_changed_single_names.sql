-- The pages for which a one-word name of theirs crossed the link probability that makes it an
-- anchor (lib/links/site_context.py, SINGLE_WORD_ANCHOR_PROBABILITY) between a crawl ($1) and
-- an earlier one ($2), or that such a name names in one of them only. Probability as
-- MentionIndex.probability: (links + strength * prior) / (mentions + strength).
-- Parameters: crawl_id, earlier crawl_id, strength, prior_single, threshold.
WITH names AS (
    SELECT crawl_id, name_key, target_url,
           (linked_by + $3 * $4) / (mentioned_by - self_mention::INTEGER + $3) >= $5 AS strong
    FROM site_names WHERE crawl_id IN ($1, $2) AND NOT contains(name_key, ' ')
)
SELECT DISTINCT target_url
FROM (SELECT * FROM names WHERE crawl_id = $1) n
FULL JOIN (SELECT * FROM names WHERE crawl_id = $2) b USING (name_key, target_url)
WHERE n.strong IS DISTINCT FROM b.strong;
