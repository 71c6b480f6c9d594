-- Stored parses no kept crawl can use (run after old crawls are deleted): those of another
-- parser (parameter: the installed parser's identity, '' to keep every parser's), and those of
-- sentences no kept crawl has. The key is the sha1 of the sentence,
-- main_text[start_offset:end_offset] of a page_sentences row; kept crawls share most
-- sentences, so each distinct sentence is hashed once.
DELETE FROM parse_cache
WHERE (? <> '' AND parser_id <> ?)
   OR sentence_hash IN (
    SELECT sentence_hash FROM parse_cache
    EXCEPT
    SELECT sha1(sentence) FROM (
        SELECT DISTINCT substr(s.main_text, p.start_offset + 1, p.end_offset - p.start_offset)
            AS sentence
        FROM page_sentences AS p
        JOIN page_summaries AS s ON s.crawl_id = p.crawl_id AND s.url = p.url
    )
);
