-- Parameters: crawl_id, owner, step. A run that continues a partial one keeps its start time.
INSERT INTO crawl_runs (crawl_id, status, step, started_at, owner)
VALUES (?, 'running', ?, current_timestamp, ?)
ON CONFLICT (crawl_id) DO UPDATE SET
    status = 'running', step = excluded.step, owner = excluded.owner,
    error = NULL, finished_at = NULL,
    started_at = CASE WHEN crawl_runs.status = 'partial' THEN crawl_runs.started_at
                      ELSE excluded.started_at END;
