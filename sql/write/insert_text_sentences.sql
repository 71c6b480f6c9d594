-- Pages' sentences by text_key (rows of the view the writer registers): a key already stored
-- keeps its rows (the same key is the same extraction of the same HTML).
INSERT INTO text_sentences
SELECT c.* FROM _linkpipe_content c
WHERE NOT EXISTS (SELECT 1 FROM text_sentences t WHERE t.text_key = c.text_key);
