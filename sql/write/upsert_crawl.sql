INSERT INTO crawls (crawl_id, start_url, source, source_path, config_json)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (crawl_id) DO UPDATE SET start_url = excluded.start_url, source = excluded.source,
    source_path = excluded.source_path, config_json = excluded.config_json;
