-- The sentences or in-text links the published copy's page_summaries rows name (run after
-- page_summaries is published; the copy keeps them by text_key as the database does): keys no
-- published row has any longer go, keys it lacks are copied, a key it has keeps its rows (the
-- same extraction). {table} is text_sentences or text_links (retention._BY_KEY).
DELETE FROM published.{table} t
WHERE NOT EXISTS (
    SELECT 1 FROM published.page_summaries s WHERE s.text_key = t.text_key
);
INSERT INTO published.{table} BY NAME
SELECT t.* FROM {table} t
WHERE t.text_key IN (
    SELECT text_key FROM published.page_summaries
    EXCEPT
    SELECT text_key FROM published.{table}
);
