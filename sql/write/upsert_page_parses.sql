-- The crawler's parses by URL and content (rows of the view the writer registers): a parse
-- made again (by other code or settings) replaces the stored one.
INSERT INTO page_parses (url, content_hash, parse_z)
SELECT url, content_hash, any_value(parse_z) FROM _linkpipe_content GROUP BY url, content_hash
ON CONFLICT DO UPDATE SET parse_z = excluded.parse_z;
