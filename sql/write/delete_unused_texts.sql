-- Sentences and in-text links whose text_key no crawl's page_summaries row has any longer (run
-- after old crawls are deleted).
DELETE FROM text_sentences t
WHERE NOT EXISTS (SELECT 1 FROM page_summaries s WHERE s.text_key = t.text_key);
DELETE FROM text_links t
WHERE NOT EXISTS (SELECT 1 FROM page_summaries s WHERE s.text_key = t.text_key);
