SELECT crawl_id, start_url, config_json FROM crawls WHERE source = 'crawler'
ORDER BY created_at DESC, crawl_id DESC LIMIT 1;
