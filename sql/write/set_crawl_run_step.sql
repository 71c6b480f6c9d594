-- Parameters: step, crawl_id.
UPDATE crawl_runs SET step = ? WHERE crawl_id = ?;
