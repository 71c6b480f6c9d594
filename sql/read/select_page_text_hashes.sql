-- For each summarised page of either crawl, the hash of what TF-IDF and the name counts read
-- of it (title, H1, main text) and of the set of pages it links in its content, in this crawl
-- and in an earlier one (NULL where it is not there). Parameters: crawl_id, the earlier one.
WITH texts AS (
    SELECT crawl_id, url, hash(title, h1, main_text) AS h FROM page_summaries
    WHERE crawl_id IN ($1, $2) AND summary <> ''
),
links AS (
    SELECT crawl_id, source_url AS url, sum(hash(resolved_url)::HUGEINT) AS h
    FROM (SELECT DISTINCT crawl_id, source_url, resolved_url FROM link_edges
          WHERE crawl_id IN ($1, $2) AND position = 'content')
    GROUP BY crawl_id, source_url
),
pages AS (
    SELECT t.crawl_id, t.url, t.h AS text_hash, l.h AS links_hash
    FROM texts t LEFT JOIN links l USING (crawl_id, url)
)
SELECT url, n.text_hash AS now, b.text_hash AS before,
       n.links_hash AS links_now, b.links_hash AS links_before
FROM (SELECT * FROM pages WHERE crawl_id = $1) n
FULL JOIN (SELECT * FROM pages WHERE crawl_id = $2) b USING (url);
