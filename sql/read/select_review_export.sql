SELECT source_url, target_url, rank, round(score, 4) AS score, anchor_text, sentence, reason,
       coalesce(decision, '') AS decision, '' AS decided_by, '' AS note
FROM v_opportunities ORDER BY source_url, rank;
