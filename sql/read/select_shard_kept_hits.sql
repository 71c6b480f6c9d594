-- The embedding hits each source of a crawl's candidate shard read, as the gate stored them
-- (? = crawl_id, shard, search salt; lib/links/kept_hits.py): URLs, similarities (float32
-- bytes), how many hits the search returned; only those searched on an index of that salt.
SELECT source_url, gate_hits, gate_sims, hits_searched
FROM candidate_sources
WHERE crawl_id = ? AND shard = ? AND search_salt = ? AND gate_hits IS NOT NULL
  AND gate_sims IS NOT NULL AND hits_searched IS NOT NULL;
