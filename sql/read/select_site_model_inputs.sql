-- Everything a crawl's site models are computed from, folded into order-independent sums of
-- row hashes (? = crawl_id): the summarised pages' names and main texts, and the link edges
-- (content links and their anchors). Two crawls whose figures are equal have the same site
-- models (lib/stages/site_models.py).
WITH p AS (SELECT ?::VARCHAR AS crawl_id)
SELECT
    (SELECT count(*) || ':' || coalesce(sum(hash(s.url, s.title, s.h1, s.slug_words,
            s.main_text)::HUGEINT), 0)
     FROM page_summaries s JOIN p USING (crawl_id) WHERE s.summary <> '') AS pages,
    (SELECT count(*) || ':' || coalesce(sum(hash(l.source_url, l.resolved_url, l.position,
            l.anchor_text)::HUGEINT), 0)
     FROM link_edges l JOIN p USING (crawl_id)) AS links;
