-- The weights one crawl was scored with and why (? = crawl_id); no row before scoring.
SELECT method, w_semantic, w_lexical, w_title, w_mention, w_graph, positives, reason
FROM scoring_weights WHERE crawl_id = ?;
