-- Everything a crawl's link graph is computed from, folded into order-independent sums of row
-- hashes (? = crawl_id): the start URL, the pages as select_pages_for_graph reads them and the
-- internal links as select_links_for_graph reads them. Two crawls whose figures are equal have
-- the same link_edges and page_link_metrics (lib/stages/link_graph.py).
WITH p AS (SELECT ?::VARCHAR AS crawl_id)
SELECT
    (SELECT c.start_url FROM crawls c JOIN p USING (crawl_id)) AS start_url,
    (SELECT count(*) || ':' || coalesce(sum(hash(g.url, g.status, g.final_url, g.canonical,
            g.redirect_loop, g.in_sitemap, coalesce(i.indexable, false))::HUGEINT), 0)
     FROM crawl_pages g JOIN p USING (crawl_id)
     LEFT JOIN indexable_pages i ON i.crawl_id = g.crawl_id AND i.url = g.url) AS pages,
    (SELECT count(*) || ':' || coalesce(sum(hash(l.source_url, l.target_url, l.anchor_text,
            l.position, l.nofollow)::HUGEINT), 0)
     FROM crawl_links l JOIN p USING (crawl_id) WHERE l.internal) AS links;
