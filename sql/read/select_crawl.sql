SELECT crawl_id, start_url, source, source_path, config_json FROM crawls WHERE crawl_id = ?;
