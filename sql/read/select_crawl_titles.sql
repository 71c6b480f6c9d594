SELECT title FROM crawl_pages WHERE crawl_id = ? AND status = 200 AND title <> '';
