-- Stored parses of sentences no kept crawl has (run after old crawls are deleted): the key is
-- the sha1 of the sentence, main_text[start_offset:end_offset] of a page_sentences row.
DELETE FROM parse_cache
WHERE sentence_hash IN (
    SELECT sentence_hash FROM parse_cache
    EXCEPT
    SELECT sha1(substr(s.main_text, p.start_offset + 1, p.end_offset - p.start_offset))
    FROM page_sentences AS p
    JOIN page_summaries AS s ON s.crawl_id = p.crawl_id AND s.url = p.url
);
