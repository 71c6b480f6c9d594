-- The gate digest, name keys (joined by line breaks: a stem holds none), the digest of the
-- text they were looked up in and hits' similarities of each source of a crawl's candidate
-- shard (? = crawl_id, shard; lib/links/source_gate.py); rows written before gate digests are
-- left out.
SELECT source_url, gate_digest, array_to_string(coalesce(name_keys, []), chr(10)) AS name_keys,
       text_digest, gate_sims
FROM candidate_sources
WHERE crawl_id = ? AND shard = ? AND gate_digest IS NOT NULL;
