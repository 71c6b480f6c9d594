-- A digest of the stored facts of each summarised page that a candidate row with it reads
-- (lib/links/source_reuse.py): its names, TF-IDF row, embedding, the name-dictionary rows
-- that name it (known anchors, link counts), and every link edge from or to it (content and
-- other links, anchor texts). Sets are folded into order-independent sums of row hashes.
-- Parameter: crawl_id.
WITH pages AS (
    SELECT url, hash(title, h1, slug_words) AS h FROM page_summaries
    WHERE crawl_id = $1 AND summary <> ''
),
terms AS (SELECT url, hash(term_ids, weights) AS h FROM site_page_terms WHERE crawl_id = $1),
vectors AS (
    SELECT url, sum(hash(model_id, embedding)::HUGEINT) AS h FROM page_embeddings
    WHERE crawl_id = $1 GROUP BY url
),
names AS (
    SELECT target_url AS url,
           sum(hash(name_key, phrase, kind, mentioned_by, linked_by, self_mention)::HUGEINT) AS h
    FROM site_names WHERE crawl_id = $1 GROUP BY target_url
),
links_out AS (
    SELECT source_url AS url,
           sum(hash(resolved_url, position, anchor_text)::HUGEINT) AS h
    FROM link_edges WHERE crawl_id = $1 GROUP BY source_url
),
links_in AS (
    SELECT resolved_url AS url,
           sum(hash(source_url, position, anchor_text)::HUGEINT) AS h
    FROM link_edges WHERE crawl_id = $1 GROUP BY resolved_url
)
SELECT p.url,
       hash(p.h, t.h, v.h, n.h, o.h, i.h)::VARCHAR || ':' || hash(i.h, o.h, n.h, v.h, t.h, p.h)::VARCHAR
           AS digest
FROM pages p
LEFT JOIN terms t USING (url) LEFT JOIN vectors v USING (url) LEFT JOIN names n USING (url)
LEFT JOIN links_out o USING (url) LEFT JOIN links_in i USING (url);
