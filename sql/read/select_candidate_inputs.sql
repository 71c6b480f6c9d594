-- Everything a shard's candidate_pairs rows are computed from, folded into order-independent
-- sums of row hashes (? = crawl_id, shard): the site's pages (summaries, embeddings,
-- indexability), its link edges, and the shard's sentences and in-text links (by the text key
-- that names them: page_summaries.text_key). Two crawls whose figures are equal have the same
-- candidate rows (lib/stages/candidate_pairs.py, shard_inputs).
WITH p AS (SELECT ?::VARCHAR AS crawl_id, ?::INTEGER AS shard)
SELECT
    (SELECT count(*) || ':' || coalesce(sum(hash(s.url, s.content_hash, s.title, s.h1,
            s.slug_words, s.summary_hash, s.word_count)::HUGEINT), 0)
     FROM page_summaries s JOIN p USING (crawl_id)) AS summaries,
    (SELECT count(*) || ':' || coalesce(sum(hash(e.url, e.model_id, e.embedding)::HUGEINT), 0)
     FROM page_embeddings e JOIN p USING (crawl_id)) AS embeddings,
    (SELECT count(*) || ':' || coalesce(sum(hash(i.url, i.indexable, i.page_type, i.title,
            i.content_hash)::HUGEINT), 0)
     FROM indexable_pages i JOIN p USING (crawl_id)) AS pages,
    (SELECT count(*) || ':' || coalesce(sum(hash(l.source_url, l.target_url, l.resolved_url,
            l.anchor_text, l.position, l.nofollow)::HUGEINT), 0)
     FROM link_edges l JOIN p USING (crawl_id)) AS links,
    (SELECT count(*) || ':' || coalesce(sum(hash(t.url, t.text_key)::HUGEINT), 0)
     FROM page_summaries t JOIN p USING (crawl_id, shard)) AS texts;
