-- The TF-IDF statistics a crawl may keep: those of the latest earlier crawl of the same start
-- URL that has site models, with the crawl they were fitted on (itself when it refitted) and
-- how many pages that fit counted, and how many pages differ between that fit's crawl and
-- this one (new, gone, or with another title, H1 or main text; NULL when the fit's crawl has
-- no summaries left). Parameter: crawl_id.
WITH cur AS (SELECT crawl_id, start_url, created_at FROM crawls WHERE crawl_id = ?),
prev AS (
    SELECT m.crawl_id, coalesce(m.fitted_in, m.crawl_id) AS fitted_in,
           coalesce(m.fit_pages, m.n_pages) AS fit_pages
    FROM site_models m JOIN crawls c USING (crawl_id) JOIN cur ON c.start_url = cur.start_url
    WHERE c.crawl_id <> cur.crawl_id
      AND (c.created_at < cur.created_at
           OR (c.created_at = cur.created_at AND c.crawl_id < cur.crawl_id))
    ORDER BY c.created_at DESC, c.crawl_id DESC
    LIMIT 1
),
now_pages AS (
    SELECT url, hash(title, h1, main_text) AS h FROM page_summaries
    WHERE crawl_id = (SELECT crawl_id FROM cur) AND summary <> ''
),
fit_pages AS (
    SELECT url, hash(title, h1, main_text) AS h FROM page_summaries
    WHERE crawl_id = (SELECT fitted_in FROM prev) AND summary <> ''
)
SELECT prev.crawl_id, prev.fitted_in, prev.fit_pages,
       (SELECT count(*) FROM now_pages) AS pages,
       CASE WHEN (SELECT count(*) FROM fit_pages) = 0 THEN NULL ELSE
           (SELECT count(*) FROM now_pages n FULL JOIN fit_pages f USING (url)
            WHERE n.h IS DISTINCT FROM f.h) END AS changed
FROM prev;
