SELECT text_hash, embedding FROM embedding_cache
WHERE model_id = ? AND text_hash IN (SELECT unnest(?::VARCHAR[]));
