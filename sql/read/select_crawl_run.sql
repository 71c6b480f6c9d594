SELECT crawl_id, status, step, started_at, finished_at, error, owner
FROM crawl_runs WHERE crawl_id = ?;
