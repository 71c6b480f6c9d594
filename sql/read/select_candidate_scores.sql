-- Every shard's candidate rows of a crawl without their placements (anchor, sentence and
-- alternatives columns): what scoring reads of every pair. The placements of the pairs it
-- keeps are read afterwards (select_candidate_placements.sql).
SELECT source_url, target_url, semantic_rank, semantic_sim, lexical_sim, title_match,
       mention_score, mention_phrase, mention_pages, mention_links, cocitation,
       shared_neighbors, already_linked_content, already_linked_nav, anchor_key
FROM candidate_pairs WHERE crawl_id = ?;
