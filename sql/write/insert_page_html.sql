-- HTML of pages by content (rows of the view the writer registers): a content already stored
-- keeps its row.
INSERT INTO page_html (content_hash, html_z)
SELECT content_hash, any_value(html_z) FROM _linkpipe_content GROUP BY content_hash
ON CONFLICT DO NOTHING;
