UPDATE crawls SET crawl_stats = ? WHERE crawl_id = ?;
