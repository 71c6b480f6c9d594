-- Everything a crawl's topic clusters are computed from, folded into order-independent sums of
-- row hashes (? = crawl_id): the page embeddings, the titles, H1s and headings of the indexable
-- pages (as select_cluster_texts reads them) and the link edges. Two crawls whose figures are
-- equal have the same topic_clusters and cluster_summary (lib/stages/topic_clusters.py).
WITH p AS (SELECT ?::VARCHAR AS crawl_id)
SELECT
    (SELECT count(*) || ':' || coalesce(sum(hash(e.url, e.model_id, e.embedding)::HUGEINT), 0)
     FROM page_embeddings e JOIN p USING (crawl_id)) AS vectors,
    (SELECT count(*) || ':' || coalesce(sum(hash(i.url, i.indexable, i.title, s.title, s.h1)::HUGEINT), 0)
     FROM indexable_pages i JOIN p USING (crawl_id)
     LEFT JOIN page_summaries s ON s.crawl_id = i.crawl_id AND s.url = i.url) AS pages,
    (SELECT count(*) || ':' || coalesce(sum(hash(t.url, t.paragraph_idx, t.sentence_idx,
            t.sentence)::HUGEINT), 0)
     FROM page_sentences t JOIN p USING (crawl_id) WHERE t.block_kind = 'heading') AS headings,
    (SELECT count(*) || ':' || coalesce(sum(hash(l.source_url, l.resolved_url, l.position,
            l.anchor_text)::HUGEINT), 0)
     FROM link_edges l JOIN p USING (crawl_id)) AS links;
