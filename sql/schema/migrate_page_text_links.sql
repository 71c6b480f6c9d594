-- A file of earlier code kept a page_text_links row per crawl, shard, page and in-text link:
-- its rows move to text_links under the page's text_key (as migrate_page_sentences.sql moves
-- the sentences; the keys of rows of earlier code are the same there), and the table gives
-- way to the view of the same name. Run once, in one transaction, before the schema.
BEGIN TRANSACTION;
ALTER TABLE page_summaries ADD COLUMN IF NOT EXISTS text_key VARCHAR;
CREATE TABLE IF NOT EXISTS text_links (
    text_key VARCHAR NOT NULL,
    target_url VARCHAR,
    anchor_text VARCHAR,
    start_offset INTEGER,
    end_offset INTEGER
);
UPDATE page_summaries SET text_key = sha1('crawl' || chr(31) || crawl_id || chr(31) || url)
WHERE text_key IS NULL;
INSERT INTO text_links
SELECT s.text_key, l.target_url, l.anchor_text, l.start_offset, l.end_offset
FROM page_text_links l
JOIN page_summaries s ON s.crawl_id = l.crawl_id AND s.url = l.url
ORDER BY l.crawl_id, l.shard, l.url, l.start_offset;
DROP TABLE page_text_links;
COMMIT;
