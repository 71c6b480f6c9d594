INSERT INTO embedding_cache (text_hash, model_id, embedding)
SELECT text_hash, model_id, embedding FROM _linkpipe_new_vectors
ON CONFLICT DO NOTHING;
