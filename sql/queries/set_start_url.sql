UPDATE crawls SET start_url = ? WHERE crawl_id = ? AND coalesce(start_url, '') = '';
