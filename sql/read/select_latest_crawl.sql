SELECT crawl_id FROM v_latest_crawl;
