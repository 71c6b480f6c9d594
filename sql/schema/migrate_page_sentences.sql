-- A file of earlier code kept a page_sentences row per crawl, shard, page and sentence: its
-- rows move to text_sentences under the page's text_key (for rows of earlier code, a key of
-- their own crawl and page: each crawl's rows kept as they were; a later crawl that keeps a
-- page's extraction shares its key), and the table gives way to the view of the same name.
-- Run once, in one transaction, before the schema.
BEGIN TRANSACTION;
ALTER TABLE page_summaries ADD COLUMN IF NOT EXISTS text_key VARCHAR;
CREATE TABLE IF NOT EXISTS text_sentences (
    text_key VARCHAR NOT NULL,
    paragraph_idx INTEGER,
    sentence_idx INTEGER,
    block_kind VARCHAR,
    start_offset INTEGER,
    end_offset INTEGER,
    sentence VARCHAR
);
UPDATE page_summaries SET text_key = sha1('crawl' || chr(31) || crawl_id || chr(31) || url)
WHERE text_key IS NULL;
INSERT INTO text_sentences
SELECT s.text_key, p.paragraph_idx, p.sentence_idx, p.block_kind, p.start_offset,
       p.end_offset, p.sentence
FROM page_sentences p
JOIN page_summaries s ON s.crawl_id = p.crawl_id AND s.url = p.url
ORDER BY p.crawl_id, p.shard, p.url, p.start_offset;
DROP TABLE page_sentences;
COMMIT;
