-- Title, H1 and other headings of the crawl's indexable pages: the words of cluster labels.
WITH headings AS (
    SELECT url, list(sentence ORDER BY paragraph_idx, sentence_idx) AS headings
    FROM page_sentences WHERE crawl_id = ? AND block_kind = 'heading'
    GROUP BY url
)
SELECT i.url, coalesce(nullif(s.title, ''), i.title, '') AS title, coalesce(s.h1, '') AS h1,
       coalesce(h.headings, []) AS headings
FROM indexable_pages i
LEFT JOIN page_summaries s ON s.crawl_id = i.crawl_id AND s.url = i.url
LEFT JOIN headings h ON h.url = i.url
WHERE i.crawl_id = ? AND i.indexable
ORDER BY i.url;
