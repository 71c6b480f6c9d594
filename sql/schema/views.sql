-- Analyst views. Each v_* view shows the crawl of v_latest_crawl; *_all views show every crawl.

-- "Latest crawl" is defined here and nowhere else: the newest crawl whose graph reached
-- link_opportunities, so every view shows the same crawl and a crawl-only run changes none.
CREATE OR REPLACE VIEW v_latest_crawl AS
SELECT crawl_id FROM crawls
WHERE crawl_id IN (SELECT DISTINCT crawl_id FROM link_opportunities)
ORDER BY created_at DESC, crawl_id DESC
LIMIT 1;

CREATE OR REPLACE VIEW v_opportunities_all AS
-- Decisions are joined live: a pair rejected after scoring disappears at once.
SELECT o.crawl_id, o.source_url, o.target_url, o.rank, o.score, o.anchor_text, o.sentence,
       o.anchor_start, o.anchor_end, o.reason, o.placement, o.paragraph_idx,
       d.decision, d.decided_by, d.note AS decision_note,
       o.relevance, o.semantic_sim, o.lexical_sim, o.title_match, o.mention_score,
       o.mention_phrase, o.graph_score,
       o.target_need, o.business_value, o.source_authority, o.direction_factor,
       o.source_type, o.target_type
FROM link_opportunities o
LEFT JOIN link_decisions d ON d.source_url = o.source_url AND d.target_url = o.target_url
WHERE d.decision IS NULL OR d.decision <> 'rejected';

CREATE OR REPLACE VIEW v_opportunities AS
SELECT * FROM v_opportunities_all
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY source_url, rank;

CREATE OR REPLACE VIEW v_excluded_pages_all AS
SELECT crawl_id, url, reason, detail FROM indexable_pages WHERE NOT indexable;

CREATE OR REPLACE VIEW v_excluded_pages AS
SELECT url, reason, detail FROM v_excluded_pages_all
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY reason, url;

CREATE OR REPLACE VIEW v_orphan_pages AS
SELECT m.url, m.in_sitemap, m.pagerank, m.content_inlinks, m.nav_inlinks
FROM page_link_metrics m
WHERE m.is_orphan AND m.indexable
  AND m.crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY m.url;

CREATE OR REPLACE VIEW v_page_metrics AS
SELECT * FROM page_link_metrics
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_cluster_gaps AS
SELECT * FROM cluster_summary
WHERE is_gap AND crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_cannibalisation AS
SELECT * FROM cannibalisation_pairs
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_decisions AS
-- Every decision, and whether an accepted link now exists in the latest crawl's content.
SELECT d.*, d.decision = 'accepted' AND EXISTS (
    SELECT 1 FROM link_edges e
    WHERE e.crawl_id = (SELECT crawl_id FROM v_latest_crawl)
      AND e.source_url = d.source_url AND e.resolved_url = d.target_url AND e.position = 'content'
) AS implemented
FROM link_decisions d;
