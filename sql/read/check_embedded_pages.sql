-- Asset check of page_embeddings: one vector per page of the shard that has a summary (the
-- pages the stage embeds), made from that summary (? = crawl_id, shard).
WITH p AS (SELECT ?::VARCHAR AS crawl_id, ?::INTEGER AS shard),
pages AS (
    SELECT s.url, s.summary_hash FROM page_summaries s JOIN p USING (crawl_id, shard)
    WHERE s.summary <> ''
),
vectors AS (
    SELECT e.url, e.text_hash FROM page_embeddings e JOIN p USING (crawl_id, shard)
),
problems AS (
    SELECT url, 'no vector' AS problem FROM pages WHERE url NOT IN (SELECT url FROM vectors)
    UNION ALL
    SELECT url, 'no summary' FROM vectors WHERE url NOT IN (SELECT url FROM pages)
    UNION ALL
    SELECT url, 'several vectors' FROM vectors GROUP BY url HAVING count(*) > 1
    UNION ALL
    SELECT v.url, 'not the summary''s vector' FROM vectors v JOIN pages s USING (url)
    WHERE v.text_hash IS DISTINCT FROM s.summary_hash
)
SELECT (SELECT count(*) FROM pages) AS pages,
       (SELECT count(*) FROM vectors) AS vectors,
       count(*) FILTER (WHERE problem = 'no vector') AS pages_without_vector,
       count(*) FILTER (WHERE problem = 'no summary') AS vectors_without_page,
       count(*) FILTER (WHERE problem = 'several vectors') AS pages_with_several_vectors,
       count(*) FILTER (WHERE problem = 'not the summary''s vector') AS stale_vectors,
       (list(problem || ': ' || url ORDER BY url, problem))[1:5] AS examples
FROM problems;
