-- The name keys one crawl's site names have and an earlier crawl's lack ('added'), and those
-- the earlier one has and this one lacks ('removed'). Parameters: crawl_id, the earlier one.
WITH now AS (SELECT DISTINCT name_key FROM site_names WHERE crawl_id = $1),
before AS (SELECT DISTINCT name_key FROM site_names WHERE crawl_id = $2)
SELECT name_key, 'added' AS change FROM (SELECT name_key FROM now EXCEPT SELECT name_key FROM before)
UNION ALL
SELECT name_key, 'removed' AS change FROM (SELECT name_key FROM before EXCEPT SELECT name_key FROM now)
ORDER BY change, name_key;
