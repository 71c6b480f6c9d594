-- Parameters: crawl_id, status, error. The step is kept: where a failed run stopped.
INSERT INTO crawl_runs (crawl_id, status, started_at, finished_at, error)
VALUES (?, ?, current_timestamp, current_timestamp, ?)
ON CONFLICT (crawl_id) DO UPDATE SET
    status = excluded.status, finished_at = excluded.finished_at, error = excluded.error;
