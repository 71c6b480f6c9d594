-- Stored parses no kept crawl can use (run after old crawls are deleted): those of another
-- parser (parameter: the installed parser's identity, '' to keep every parser's), and those of
-- sentences no kept crawl has. The key is the sha1 of the sentence,
-- main_text[start_offset:end_offset] of a page's text_sentences row; kept crawls share most
-- sentences, so each distinct sentence is hashed once.
DELETE FROM parse_cache
WHERE (? <> '' AND parser_id <> ?)
   OR sentence_hash IN (
    SELECT sentence_hash FROM parse_cache
    EXCEPT
    SELECT sha1(sentence) FROM (
        SELECT DISTINCT substr(s.main_text, t.start_offset + 1, t.end_offset - t.start_offset)
            AS sentence
        FROM page_summaries AS s
        JOIN text_sentences AS t ON t.text_key = s.text_key
    )
);
