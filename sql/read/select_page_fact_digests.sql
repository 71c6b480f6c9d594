-- A digest of the stored facts of each summarised page that a candidate row with it reads
-- beside its target profile (lib/links/source_reuse.py): its names, TF-IDF row, embedding and
-- every link edge from it (content and other links, anchor texts). Links to it and the name
-- counts are not here: a row reads them through the co-citation value, the profile and what
-- retrieval found, which the row digest holds. Parameter: crawl_id.
WITH pages AS (
    SELECT url, hash(title, h1, slug_words) AS h FROM page_summaries
    WHERE crawl_id = $1 AND summary <> ''
),
terms AS (SELECT url, hash(term_ids, weights) AS h FROM site_page_terms WHERE crawl_id = $1),
vectors AS (
    SELECT url, sum(hash(model_id, embedding)::HUGEINT) AS h FROM page_embeddings
    WHERE crawl_id = $1 GROUP BY url
),
links_out AS (
    SELECT source_url AS url,
           sum(hash(resolved_url, position, anchor_text)::HUGEINT) AS h
    FROM link_edges WHERE crawl_id = $1 GROUP BY source_url
)
SELECT p.url,
       hash(p.h, t.h, v.h, o.h)::VARCHAR || ':' || hash(o.h, v.h, t.h, p.h)::VARCHAR AS digest
FROM pages p
LEFT JOIN terms t USING (url) LEFT JOIN vectors v USING (url) LEFT JOIN links_out o USING (url);
