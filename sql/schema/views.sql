-- Analyst views. Each v_* view shows the crawl of v_latest_crawl; *_all views show every crawl.

-- "Latest crawl" is defined here and nowhere else: the newest crawl whose whole graph has
-- materialized (crawl_runs.status = 'complete'), so every view shows the same crawl, and a
-- running, failed, killed or crawl-only run changes none (v_crawl_runs lists those).
CREATE OR REPLACE VIEW v_latest_crawl AS
SELECT c.crawl_id FROM crawls c JOIN crawl_runs r USING (crawl_id)
WHERE r.status = 'complete'
ORDER BY c.created_at DESC, c.crawl_id DESC
LIMIT 1;

-- Each crawled page with its stored HTML (html_z): kept once by content in page_html, or in
-- the page's own row for earlier code's crawls. The pipeline reads pages' HTML through it (the
-- published copy holds no HTML: there html_z is NULL but for earlier code's crawls).
CREATE OR REPLACE VIEW crawl_pages_html AS
SELECT p.* REPLACE (coalesce(p.html_z, h.html_z) AS html_z)
FROM crawl_pages p LEFT JOIN page_html h ON h.content_hash = p.content_hash;

-- The sentences of each crawl's pages (one row a sentence, as page_sentences was a table
-- before): stored once by the page's text_key in text_sentences and shared by the crawls that
-- keep its extraction. The pipeline and analysts read sentences through it.
CREATE OR REPLACE VIEW page_sentences AS
SELECT s.crawl_id, s.shard, s.url, t.paragraph_idx, t.sentence_idx, t.block_kind,
       t.start_offset, t.end_offset, t.sentence
FROM page_summaries s JOIN text_sentences t ON t.text_key = s.text_key;

-- The links inside each crawl's pages' main texts, stored once by text_key in text_links.
CREATE OR REPLACE VIEW page_text_links AS
SELECT s.crawl_id, s.shard, s.url, t.target_url, t.anchor_text, t.start_offset, t.end_offset
FROM page_summaries s JOIN text_links t ON t.text_key = s.text_key;

CREATE OR REPLACE VIEW v_crawl_runs AS
-- Every registered crawl with how its run went; a crawl started from the Dagster UI has no
-- run record until its graph completes ('registered').
SELECT c.crawl_id, c.start_url, c.source, coalesce(r.status, 'registered') AS status,
       r.step, r.error, coalesce(r.started_at, c.created_at) AS started_at, r.finished_at,
       c.crawl_id = (SELECT crawl_id FROM v_latest_crawl) AS is_latest,
       (SELECT count(*) FROM crawl_pages p WHERE p.crawl_id = c.crawl_id) AS pages_fetched,
       (SELECT count(*) FROM link_opportunities o WHERE o.crawl_id = c.crawl_id) AS opportunities
FROM crawls c LEFT JOIN crawl_runs r USING (crawl_id)
ORDER BY c.created_at DESC, c.crawl_id DESC;

CREATE OR REPLACE VIEW v_opportunities_all AS
-- Decisions are joined live: a pair rejected after scoring disappears at once.
SELECT o.crawl_id, o.source_url, o.target_url, st.title AS source_title, tt.title AS target_title,
       o.rank, o.score, o.confidence, o.anchor_text, o.sentence,
       o.anchor_start, o.anchor_end, o.reason, o.placement, o.paragraph_idx,
       d.decision, d.decided_by, d.note AS decision_note,
       o.relevance, o.semantic_sim, o.lexical_sim, o.title_match, o.mention_score,
       o.mention_phrase, o.graph_score,
       o.target_need, o.business_value, o.source_authority, o.direction_factor,
       o.source_type, o.target_type
FROM link_opportunities o
LEFT JOIN link_decisions d ON d.source_url = o.source_url AND d.target_url = o.target_url
LEFT JOIN indexable_pages st ON st.crawl_id = o.crawl_id AND st.url = o.source_url
LEFT JOIN indexable_pages tt ON tt.crawl_id = o.crawl_id AND tt.url = o.target_url
WHERE d.decision IS NULL OR d.decision <> 'rejected';

CREATE OR REPLACE VIEW v_opportunities AS
SELECT * FROM v_opportunities_all
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY source_url, rank;

CREATE OR REPLACE VIEW v_excluded_pages_all AS
SELECT crawl_id, url, reason, detail, title FROM indexable_pages WHERE NOT indexable;

CREATE OR REPLACE VIEW v_excluded_pages AS
SELECT url, reason, detail, title FROM v_excluded_pages_all
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY reason, url;

CREATE OR REPLACE VIEW v_orphan_pages AS
-- Every orphan of the latest crawl (known from the sitemap or a redirect, no followed link
-- from another page), indexable or not: an excluded orphan carries the reason it is excluded.
SELECT m.url, m.indexable, i.reason AS excluded_reason, i.detail AS excluded_detail,
       i.title, i.word_count, m.in_sitemap, m.pagerank, m.content_inlinks, m.nav_inlinks
FROM page_link_metrics m
LEFT JOIN indexable_pages i ON i.crawl_id = m.crawl_id AND i.url = m.url
WHERE m.is_orphan
  AND m.crawl_id = (SELECT crawl_id FROM v_latest_crawl)
ORDER BY m.indexable DESC, m.url;

CREATE OR REPLACE VIEW v_page_metrics AS
SELECT m.crawl_id, m.url, i.title, m.* EXCLUDE (crawl_id, url)
FROM page_link_metrics m
LEFT JOIN indexable_pages i ON i.crawl_id = m.crawl_id AND i.url = m.url
WHERE m.crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_cluster_gaps AS
SELECT * FROM cluster_summary
WHERE is_gap AND crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_cannibalisation AS
SELECT * FROM cannibalisation_pairs
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_scoring_weights AS
-- The relevance weights the latest crawl was scored with: fitted on the site's own content
-- links or the configured defaults, with the held-out evidence and why (lib/links/weights.py).
SELECT * FROM scoring_weights
WHERE crawl_id = (SELECT crawl_id FROM v_latest_crawl);

CREATE OR REPLACE VIEW v_decisions AS
-- Every decision, and whether an accepted link now exists in the latest crawl's content.
SELECT d.*, d.decision = 'accepted' AND EXISTS (
    SELECT 1 FROM link_edges e
    WHERE e.crawl_id = (SELECT crawl_id FROM v_latest_crawl)
      AND e.source_url = d.source_url AND e.resolved_url = d.target_url AND e.position = 'content'
) AS implemented
FROM link_decisions d;

-- History: what changed between two crawls. The table macros compare any two crawls
-- (SELECT * FROM suggestion_changes('old-id', 'new-id')); the v_* views compare the pair of
-- v_compared_crawls and are empty while the site has a single complete crawl.
CREATE OR REPLACE VIEW v_compared_crawls AS
-- The latest complete crawl and the complete crawl of the same start URL before it.
SELECT prev.crawl_id AS old_crawl_id, latest.crawl_id AS new_crawl_id, latest.start_url
FROM crawls latest, crawls prev JOIN crawl_runs r ON r.crawl_id = prev.crawl_id
WHERE latest.crawl_id = (SELECT crawl_id FROM v_latest_crawl)
  AND r.status = 'complete'
  AND prev.start_url IS NOT DISTINCT FROM latest.start_url
  AND (prev.created_at < latest.created_at
       OR (prev.created_at = latest.created_at AND prev.crawl_id < latest.crawl_id))
ORDER BY prev.created_at DESC, prev.crawl_id DESC
LIMIT 1;

CREATE OR REPLACE MACRO suggestion_changes(old_crawl, new_crawl) AS TABLE
-- Every suggested pair of either crawl: new, still_open, implemented (linked in the new
-- crawl's content, with its anchor) or disappeared, and why, first matching reason first.
WITH pairs AS (
    SELECT coalesce(n.source_url, o.source_url) AS source_url,
           coalesce(n.target_url, o.target_url) AS target_url,
           o.rank AS old_rank, n.rank AS new_rank, o.score AS old_score, n.score AS new_score,
           coalesce(n.anchor_text, o.anchor_text) AS suggested_anchor,
           o.source_url IS NOT NULL AS in_old, n.source_url IS NOT NULL AS in_new
    FROM (SELECT * FROM link_opportunities WHERE crawl_id = old_crawl) o
    FULL JOIN (SELECT * FROM link_opportunities WHERE crawl_id = new_crawl) n
      ON n.source_url = o.source_url AND n.target_url = o.target_url
), content_links AS (
    SELECT crawl_id, source_url, resolved_url AS target_url,
           string_agg(DISTINCT nullif(anchor_text, ''), ' | ' ORDER BY nullif(anchor_text, ''))
               AS anchor_text
    FROM link_edges WHERE crawl_id IN (old_crawl, new_crawl) AND position = 'content'
    GROUP BY ALL
), pages AS (
    SELECT crawl_id, url, indexable, reason FROM indexable_pages
    WHERE crawl_id IN (old_crawl, new_crawl)
)
SELECT old_crawl AS old_crawl_id, new_crawl AS new_crawl_id, p.source_url, p.target_url,
       CASE WHEN p.in_old AND p.in_new THEN 'still_open'
            WHEN p.in_new THEN 'new'
            WHEN ln.source_url IS NOT NULL THEN 'implemented'
            ELSE 'disappeared' END AS status,
       CASE WHEN p.in_old AND p.in_new THEN NULL
            WHEN p.in_new THEN CASE
                WHEN lo.source_url IS NOT NULL THEN 'content link removed'
                WHEN so.url IS NULL THEN 'source page new'
                WHEN tgt_o.url IS NULL THEN 'target page new'
                ELSE 'newly ranked' END
            WHEN ln.source_url IS NOT NULL
                THEN 'linked in content with anchor "' || coalesce(ln.anchor_text, '') || '"'
            WHEN d.decision = 'rejected' THEN 'rejected by an editor'
            WHEN sn.url IS NULL THEN 'source page gone'
            WHEN NOT sn.indexable THEN 'source page no longer indexable: ' || sn.reason
            WHEN tn.url IS NULL THEN 'target page gone'
            WHEN NOT tn.indexable THEN 'target page no longer indexable: ' || tn.reason
            WHEN EXISTS (SELECT 1 FROM candidate_pairs c WHERE c.crawl_id = new_crawl
                         AND c.source_url = p.source_url AND c.target_url = p.target_url
                         AND c.already_linked_content IS NOT TRUE)
                THEN 'no longer ranked'
            ELSE 'no longer a candidate' END AS why,
       p.old_rank, p.new_rank, p.old_score, p.new_score, p.suggested_anchor,
       ln.anchor_text AS implemented_anchor, d.decision, d.decided_by
FROM pairs p
LEFT JOIN content_links ln ON ln.crawl_id = new_crawl
     AND ln.source_url = p.source_url AND ln.target_url = p.target_url
LEFT JOIN content_links lo ON lo.crawl_id = old_crawl
     AND lo.source_url = p.source_url AND lo.target_url = p.target_url
LEFT JOIN pages so ON so.crawl_id = old_crawl AND so.url = p.source_url
LEFT JOIN pages tgt_o ON tgt_o.crawl_id = old_crawl AND tgt_o.url = p.target_url
LEFT JOIN pages sn ON sn.crawl_id = new_crawl AND sn.url = p.source_url
LEFT JOIN pages tn ON tn.crawl_id = new_crawl AND tn.url = p.target_url
LEFT JOIN link_decisions d ON d.source_url = p.source_url AND d.target_url = p.target_url;

CREATE OR REPLACE MACRO link_changes(old_crawl, new_crawl) AS TABLE
-- Links (link_edges: source, resolved target, position) added, removed, or kept with other
-- anchor texts; a link that moved from navigation to content is removed once and added once.
WITH links AS (
    SELECT crawl_id, source_url, resolved_url AS target_url, position,
           string_agg(DISTINCT nullif(anchor_text, ''), ' | ' ORDER BY nullif(anchor_text, ''))
               AS anchor_text
    FROM link_edges WHERE crawl_id IN (old_crawl, new_crawl)
    GROUP BY ALL
), pages AS (
    SELECT crawl_id, url FROM crawl_pages WHERE crawl_id IN (old_crawl, new_crawl)
), changed AS (
    SELECT coalesce(n.source_url, o.source_url) AS source_url,
           coalesce(n.target_url, o.target_url) AS target_url,
           coalesce(n.position, o.position) AS position,
           CASE WHEN o.source_url IS NULL THEN 'added'
                WHEN n.source_url IS NULL THEN 'removed'
                ELSE 'anchor_changed' END AS change,
           o.anchor_text AS old_anchor_text, n.anchor_text AS new_anchor_text
    FROM (SELECT * FROM links WHERE crawl_id = old_crawl) o
    FULL JOIN (SELECT * FROM links WHERE crawl_id = new_crawl) n
      ON n.source_url = o.source_url AND n.target_url = o.target_url
     AND n.position = o.position
    WHERE o.source_url IS NULL OR n.source_url IS NULL
       OR o.anchor_text IS DISTINCT FROM n.anchor_text
)
SELECT old_crawl AS old_crawl_id, new_crawl AS new_crawl_id, c.*,
       CASE WHEN c.change = 'added' AND so.url IS NULL THEN 'source page new'
            WHEN c.change = 'added' AND t_o.url IS NULL THEN 'target page new'
            WHEN c.change = 'removed' AND sn.url IS NULL THEN 'source page gone'
            WHEN c.change = 'removed' AND tn.url IS NULL THEN 'target page gone'
            END AS why
FROM changed c
LEFT JOIN pages so ON so.crawl_id = old_crawl AND so.url = c.source_url
LEFT JOIN pages t_o ON t_o.crawl_id = old_crawl AND t_o.url = c.target_url
LEFT JOIN pages sn ON sn.crawl_id = new_crawl AND sn.url = c.source_url
LEFT JOIN pages tn ON tn.crawl_id = new_crawl AND tn.url = c.target_url;

CREATE OR REPLACE MACRO accepted_followup(old_crawl, new_crawl) AS TABLE
-- Accepted decisions reviewed on old_crawl or before, checked against new_crawl: implemented
-- (a content link, with its anchor), missing, or page_gone (either page not crawled).
WITH content_links AS (
    SELECT crawl_id, source_url, resolved_url AS target_url,
           string_agg(DISTINCT nullif(anchor_text, ''), ' | ' ORDER BY nullif(anchor_text, ''))
               AS anchor_text
    FROM link_edges WHERE crawl_id IN (old_crawl, new_crawl) AND position = 'content'
    GROUP BY ALL
), other_links AS (
    SELECT source_url, resolved_url AS target_url,
           string_agg(DISTINCT position, ', ' ORDER BY position) AS positions
    FROM link_edges WHERE crawl_id = new_crawl AND position <> 'content'
    GROUP BY ALL
), pages AS (
    SELECT url FROM crawl_pages WHERE crawl_id = new_crawl
)
SELECT old_crawl AS old_crawl_id, new_crawl AS new_crawl_id, d.source_url, d.target_url,
       CASE WHEN ln.source_url IS NOT NULL THEN 'implemented'
            WHEN ps.url IS NULL OR pt.url IS NULL THEN 'page_gone'
            ELSE 'missing' END AS status,
       ln.anchor_text AS implemented_anchor,
       lo.source_url IS NOT NULL AS linked_before,
       ol.positions AS other_positions,
       EXISTS (SELECT 1 FROM link_opportunities o WHERE o.crawl_id = new_crawl
               AND o.source_url = d.source_url AND o.target_url = d.target_url)
           AS still_suggested,
       d.decided_by, d.decided_at, d.crawl_id AS reviewed_crawl_id, d.note
FROM link_decisions d
LEFT JOIN crawls reviewed ON reviewed.crawl_id = d.crawl_id
LEFT JOIN content_links ln ON ln.crawl_id = new_crawl
     AND ln.source_url = d.source_url AND ln.target_url = d.target_url
LEFT JOIN content_links lo ON lo.crawl_id = old_crawl
     AND lo.source_url = d.source_url AND lo.target_url = d.target_url
LEFT JOIN other_links ol ON ol.source_url = d.source_url AND ol.target_url = d.target_url
LEFT JOIN pages ps ON ps.url = d.source_url
LEFT JOIN pages pt ON pt.url = d.target_url
WHERE d.decision = 'accepted' AND old_crawl IS NOT NULL AND new_crawl IS NOT NULL
  AND (reviewed.crawl_id IS NULL OR reviewed.crawl_id = old_crawl
       OR reviewed.created_at < (SELECT created_at FROM crawls WHERE crawl_id = old_crawl));

CREATE OR REPLACE VIEW v_suggestion_changes AS
SELECT * FROM suggestion_changes((SELECT old_crawl_id FROM v_compared_crawls),
                                 (SELECT new_crawl_id FROM v_compared_crawls))
ORDER BY status, source_url, target_url;

CREATE OR REPLACE VIEW v_link_changes AS
SELECT * FROM link_changes((SELECT old_crawl_id FROM v_compared_crawls),
                           (SELECT new_crawl_id FROM v_compared_crawls))
ORDER BY change, position, source_url, target_url;

CREATE OR REPLACE VIEW v_accepted_followup AS
SELECT * FROM accepted_followup((SELECT old_crawl_id FROM v_compared_crawls),
                                (SELECT new_crawl_id FROM v_compared_crawls))
ORDER BY status, source_url, target_url;
