INSERT INTO link_decisions (source_url, target_url, decision, decided_by, decided_at, note, crawl_id)
VALUES (?, ?, ?, ?, CAST(? AS TIMESTAMP), ?, ?)
ON CONFLICT (source_url, target_url) DO UPDATE SET decision = excluded.decision,
    decided_by = excluded.decided_by, decided_at = excluded.decided_at, note = excluded.note,
    crawl_id = excluded.crawl_id;
