-- Runs recorded as running: their owners are checked for life by run_status.mark_dead_runs.
SELECT crawl_id, owner, step FROM crawl_runs WHERE status = 'running' ORDER BY crawl_id;
