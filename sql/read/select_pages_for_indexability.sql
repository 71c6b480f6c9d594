-- Every crawled URL of the crawl with what the indexability rules read, and the main-area facts
-- of the previous crawl's row for the same URL and HTML (same content_hash, both with HTML,
-- measured by the same code); the HTML is read only for pages without such a row.
-- Parameters: previous crawl_id (NULL: none), facts digest, crawl_id.
WITH previous AS (
    SELECT url, content_hash, word_count, link_share, main_links, child_links, text_key, simhash
    FROM indexable_pages
    WHERE crawl_id = ? AND facts_digest = ? AND text_key IS NOT NULL
)
SELECT p.url, p.shard, p.status, p.final_url, p.redirect_chain, p.redirect_loop,
       p.content_type, p.canonical, p.meta_robots, p.x_robots_tag, p.robots_disallowed, p.error,
       p.title, p.page_type, p.depth, p.content_hash,
       prev.url IS NOT NULL AS reusable,
       prev.word_count, prev.link_share, prev.main_links, prev.child_links, prev.text_key,
       prev.simhash,
       CASE WHEN prev.url IS NULL THEN p.html_z END AS html_z
FROM crawl_pages_html p
LEFT JOIN previous prev
       ON prev.url = p.url AND prev.content_hash = p.content_hash AND p.html_z IS NOT NULL
WHERE p.crawl_id = ?
ORDER BY p.url;
