SELECT url, shard, status, final_url, redirect_chain, redirect_loop, content_type, canonical,
       meta_robots, x_robots_tag, robots_disallowed, error, title, page_type, depth,
       content_hash, html_z
FROM crawl_pages WHERE crawl_id = ? ORDER BY url;
