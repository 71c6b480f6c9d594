-- The gate digest, name keys and hits' similarities of each source of a crawl's candidate
-- shard (? = crawl_id, shard; lib/links/source_gate.py); rows written before gate digests are
-- left out.
SELECT source_url, gate_digest, name_keys, gate_sims FROM candidate_sources
WHERE crawl_id = ? AND shard = ? AND gate_digest IS NOT NULL;
