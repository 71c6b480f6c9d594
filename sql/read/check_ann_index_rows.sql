-- Asset check of ann_index: the stored FAISS index holds one row per vector of the crawl
-- (? = crawl_id). index_header is the start of the serialized index, which records its row
-- count (see linkpipe.lib.checks.faiss_rows).
WITH p AS (SELECT ?::VARCHAR AS crawl_id),
vectors AS (SELECT e.url FROM page_embeddings e JOIN p USING (crawl_id))
SELECT count(*) OVER () AS indexes,
       a.n_vectors,
       len(a.urls) AS urls,
       a.index_blob[1:16] AS index_header,
       (SELECT count(*) FROM vectors) AS vectors,
       (SELECT count(*) FROM (SELECT unnest(a.urls) AS url) u
        WHERE u.url NOT IN (SELECT url FROM vectors)) AS urls_without_vector
FROM ann_indexes a JOIN p USING (crawl_id)
ORDER BY a.n_vectors;
