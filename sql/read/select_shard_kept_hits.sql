-- What the gate stored of the searches of each source of a crawl's candidate shard (? =
-- crawl_id, shard, search salt; lib/links/kept_hits.py, kept_lexical.py): the embedding hits
-- read (URLs, float32 similarities), how many hits the search returned, the TF-IDF
-- neighbours found with their cut (and the highest it may be), floor and the next pages below
-- the cut and the runner-up after the list; only sources searched with that salt.
SELECT source_url, gate_hits, gate_sims, hits_searched, lexical_hits, lexical_cut,
       lexical_floor, lexical_cut_high, lexical_nexts, lexical_next_partials, lexical_runner,
       lexical_runner_cosine
FROM candidate_sources
WHERE crawl_id = ? AND shard = ? AND search_salt = ? AND gate_hits IS NOT NULL
  AND gate_sims IS NOT NULL AND hits_searched IS NOT NULL;
