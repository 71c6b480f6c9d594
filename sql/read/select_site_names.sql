SELECT name_key, target_url, phrase, kind, mentioned_by, linked_by, self_mention
FROM site_names WHERE crawl_id = ? ORDER BY name_key, target_url;
