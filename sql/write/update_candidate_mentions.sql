-- The mention evidence of a shard's candidate rows as this crawl counts it (site_names): a row
-- copied from an earlier crawl keeps its name (mention_key, mention_phrase) but gets this
-- crawl's counts, so a name counted on one more page does not make every source that mentions
-- it be computed again. Run inside the shard's write (storage.write_partition), after its rows.
-- P(link | mention) = (L + strength * prior) / (M + strength), M the pages naming it (the
-- target left out), L those of them linking the target, prior by the name's length
-- (lib/text/mentions.py, MentionIndex.probability); a row the source already links counts
-- without its own link (MentionIndex.without_one_link).
-- Parameters: prior_single, prior_multi, strength, crawl_id, shard.
UPDATE candidate_pairs AS c
SET mention_pages = m.pages,
    mention_links = m.links,
    mention_score = round((m.links + $3 * m.prior) / (m.pages + $3), 6)
FROM (
    SELECT p.source_url, p.target_url,
           n.mentioned_by - n.self_mention::INTEGER - o.own AS pages,
           n.linked_by - o.own AS links,
           CASE WHEN contains(n.name_key, ' ') THEN $2 ELSE $1 END AS prior
    FROM candidate_pairs p
    JOIN site_names n
      ON n.crawl_id = p.crawl_id AND n.name_key = p.mention_key AND n.target_url = p.target_url
    CROSS JOIN LATERAL (
        SELECT CASE WHEN p.already_linked_content AND n.linked_by >= 1
                         AND n.mentioned_by - n.self_mention::INTEGER >= 1
                    THEN 1 ELSE 0 END AS own
    ) o
    WHERE p.crawl_id = $4 AND p.shard = $5 AND p.mention_key IS NOT NULL
) m
WHERE c.crawl_id = $4 AND c.shard = $5
  AND c.source_url = m.source_url AND c.target_url = m.target_url;
