-- Pages' sentences or in-text links by text_key (rows of the view the writer registers): a key
-- already stored keeps its rows (the same key is the same extraction of the same HTML). {table}
-- is text_sentences or text_links (storage.CONTENT_TABLES).
INSERT INTO {table}
SELECT c.* FROM _linkpipe_content c
WHERE NOT EXISTS (SELECT 1 FROM {table} t WHERE t.text_key = c.text_key);
