INSERT INTO parse_cache (sentence_hash, parser_id, parse)
SELECT sentence_hash, parser_id, parse FROM _linkpipe_new_parses
ON CONFLICT DO UPDATE SET parse = excluded.parse;  -- a damaged row is stored over
