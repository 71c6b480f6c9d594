-- The IVF index a crawl may take the trained lists of: the latest earlier crawl of the same
-- start URL with an ann_indexes row, its kind, model, dimension and size, and how many of
-- this crawl's embedded pages are new or embed another text since it (a URL whose
-- (url, text_hash) that crawl does not have) or are gone.
-- Parameters: crawl_id (twice).
WITH previous AS (
    SELECT c.crawl_id
    FROM crawls c JOIN crawls cur ON cur.crawl_id = ? AND c.start_url = cur.start_url
    WHERE c.crawl_id <> cur.crawl_id
      AND (c.created_at < cur.created_at
           OR (c.created_at = cur.created_at AND c.crawl_id < cur.crawl_id))
      AND c.crawl_id IN (SELECT crawl_id FROM ann_indexes)
    ORDER BY c.created_at DESC, c.crawl_id DESC
    LIMIT 1
),
now AS (SELECT url, text_hash FROM page_embeddings WHERE crawl_id = ?),
before AS (
    SELECT url, text_hash FROM page_embeddings
    WHERE crawl_id = (SELECT crawl_id FROM previous)
)
SELECT a.crawl_id, a.index_kind, a.model_id, a.dim, a.n_vectors,
       (SELECT count(*) FROM (SELECT * FROM now EXCEPT SELECT * FROM before)) AS changed,
       (SELECT count(*) FROM (SELECT url FROM before EXCEPT SELECT url FROM now)) AS gone
FROM ann_indexes a
WHERE a.crawl_id = (SELECT crawl_id FROM previous);
