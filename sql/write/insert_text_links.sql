-- Pages' in-text links by text_key (rows of the view the writer registers): a key already
-- stored keeps its rows (the same key is the same extraction of the same HTML). A page
-- without links stores none: its key is in page_summaries only.
INSERT INTO text_links
SELECT c.* FROM _linkpipe_content c
WHERE NOT EXISTS (SELECT 1 FROM text_links t WHERE t.text_key = c.text_key);
