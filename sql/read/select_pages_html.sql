-- The stored HTML of some pages of a crawl. Parameters: crawl_id, list of URLs.
SELECT url, html_z FROM crawl_pages_html WHERE crawl_id = ? AND list_contains(?, url);
