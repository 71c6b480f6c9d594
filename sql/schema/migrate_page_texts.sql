-- A file of earlier code kept a row per crawl, shard, page and sentence (page_sentences) or
-- in-text link (page_text_links): the rows move to text_sentences and text_links (made by
-- create_tables.sql, which runs first) under the page's text_key, for rows of earlier code a
-- key of their own crawl and page (each crawl's rows kept as they were; a later crawl that
-- keeps a page's extraction shares its key), and the tables give way to the views of the same
-- names (views.sql, which runs after). Run once, in one transaction.
BEGIN TRANSACTION;
UPDATE page_summaries SET text_key = sha1('crawl' || chr(31) || crawl_id || chr(31) || url)
WHERE text_key IS NULL;
INSERT INTO text_sentences
SELECT s.text_key, p.paragraph_idx, p.sentence_idx, p.block_kind, p.start_offset,
       p.end_offset, p.sentence
FROM page_sentences p
JOIN page_summaries s ON s.crawl_id = p.crawl_id AND s.url = p.url
ORDER BY p.crawl_id, p.shard, p.url, p.start_offset;
INSERT INTO text_links
SELECT s.text_key, l.target_url, l.anchor_text, l.start_offset, l.end_offset
FROM page_text_links l
JOIN page_summaries s ON s.crawl_id = l.crawl_id AND s.url = l.url
ORDER BY l.crawl_id, l.shard, l.url, l.start_offset;
DROP TABLE page_sentences;
DROP TABLE page_text_links;
COMMIT;
