SELECT url, title FROM indexable_pages WHERE crawl_id = ? AND indexable;
