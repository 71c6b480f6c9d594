-- Analyst views. Each v_* view shows the latest crawl that has rows; *_all views show every crawl.

CREATE OR REPLACE VIEW v_latest_crawl AS
SELECT crawl_id FROM crawls
WHERE crawl_id IN (SELECT DISTINCT crawl_id FROM link_opportunities)
ORDER BY created_at DESC, crawl_id DESC
LIMIT 1;

CREATE OR REPLACE VIEW v_opportunities_all AS
SELECT crawl_id, source_url, target_url, rank, score, anchor_text, sentence,
       anchor_start, anchor_end, reason, placement, paragraph_idx, decision,
       relevance, semantic_sim, lexical_sim, title_match, graph_score,
       target_need, business_value, source_authority, direction_factor,
       source_type, target_type
FROM link_opportunities;

CREATE OR REPLACE VIEW v_opportunities AS
SELECT * FROM v_opportunities_all
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY source_url, rank;

CREATE OR REPLACE VIEW v_excluded_pages_all AS
SELECT crawl_id, url, reason, detail FROM indexable_pages WHERE NOT indexable;

CREATE OR REPLACE VIEW v_excluded_pages AS
SELECT url, reason, detail FROM v_excluded_pages_all
WHERE crawl_id = (SELECT crawl_id FROM crawls ORDER BY created_at DESC, crawl_id DESC LIMIT 1)
ORDER BY reason, url;

CREATE OR REPLACE VIEW v_orphan_pages AS
SELECT m.url, m.in_sitemap, m.pagerank, m.content_inlinks, m.nav_inlinks
FROM page_link_metrics m
WHERE m.is_orphan AND m.indexable
  AND m.crawl_id = (SELECT crawl_id FROM crawls ORDER BY created_at DESC, crawl_id DESC LIMIT 1)
ORDER BY m.url;

CREATE OR REPLACE VIEW v_page_metrics AS
SELECT * FROM page_link_metrics
WHERE crawl_id = (SELECT crawl_id FROM crawls ORDER BY created_at DESC, crawl_id DESC LIMIT 1);

CREATE OR REPLACE VIEW v_cluster_gaps AS
SELECT * FROM cluster_summary
WHERE is_gap AND crawl_id = (SELECT crawl_id FROM crawls ORDER BY created_at DESC, crawl_id DESC LIMIT 1);

CREATE OR REPLACE VIEW v_cannibalisation AS
SELECT * FROM cannibalisation_pairs
WHERE crawl_id = (SELECT crawl_id FROM crawls ORDER BY created_at DESC, crawl_id DESC LIMIT 1);
