-- `linkpipe whatif --accepted`: accepted decisions whose two pages the crawl (?) fetched, and
-- whether the crawl's content already links them. Params: crawl_id, crawl_id, crawl_id.
SELECT d.source_url, d.target_url,
       EXISTS (SELECT 1 FROM link_edges e
               WHERE e.crawl_id = ? AND e.source_url = d.source_url
                 AND e.resolved_url = d.target_url AND e.position = 'content') AS already_linked
FROM link_decisions d
WHERE d.decision = 'accepted'
  AND d.source_url IN (SELECT url FROM crawl_pages WHERE crawl_id = ?)
  AND d.target_url IN (SELECT url FROM crawl_pages WHERE crawl_id = ?)
ORDER BY d.source_url, d.target_url;
