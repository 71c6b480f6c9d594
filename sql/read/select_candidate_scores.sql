-- What scoring reads of every candidate pair of a crawl (a PairTable): the two URLs, the
-- evidence and whether the source already links the target in its content. The full rows of
-- the pairs it keeps are read afterwards (export_candidates_of_pairs.sql).
-- Parameters: crawl_id.
SELECT source_url, target_url, semantic_sim, lexical_sim, title_match, mention_score,
       cocitation, shared_neighbors, already_linked_content
FROM candidate_pairs WHERE crawl_id = ?;
