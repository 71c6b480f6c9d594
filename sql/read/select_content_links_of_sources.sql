-- The pages each of the given pages links in its content (targets resolved through redirects
-- and canonicals). Parameters: crawl_id, the source URLs.
SELECT DISTINCT source_url, resolved_url FROM link_edges
WHERE crawl_id = ? AND position = 'content' AND source_url IN (SELECT unnest(?::VARCHAR[]));
