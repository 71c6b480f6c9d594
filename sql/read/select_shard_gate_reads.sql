-- The gate digest, name keys (joined by line breaks: a stem holds none) and hits'
-- similarities of each source of a crawl's candidate shard (? = crawl_id, shard;
-- lib/links/source_gate.py); rows written before gate digests are left out.
SELECT source_url, gate_digest, array_to_string(coalesce(name_keys, []), chr(10)) AS name_keys,
       gate_sims
FROM candidate_sources
WHERE crawl_id = ? AND shard = ? AND gate_digest IS NOT NULL;
