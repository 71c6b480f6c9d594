SELECT sentence_hash, parse FROM parse_cache
WHERE parser_id = ? AND sentence_hash IN (SELECT unnest(?::VARCHAR[]));
