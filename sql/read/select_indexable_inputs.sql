-- Everything a crawl's indexable pages are computed from, folded into an order-independent sum
-- of row hashes (? = crawl_id): every crawled URL as select_pages_for_indexability reads it
-- (its HTML by its content hash, and whether it has HTML). Two crawls whose figures are equal
-- (with the same rules and code) have the same indexable_pages and indexability_thresholds
-- (lib/stages/indexable_pages.py).
SELECT count(*) || ':' || coalesce(sum(hash(
           url, shard, status, final_url, redirect_chain, redirect_loop, content_type,
           canonical, meta_robots, x_robots_tag, robots_disallowed, error, title, page_type,
           depth, content_hash, html_z IS NULL)::HUGEINT), 0) AS pages
FROM crawl_pages_html WHERE crawl_id = ?;
