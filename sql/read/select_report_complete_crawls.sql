-- `linkpipe report`: the complete crawls, newest first, to name in the error for an unknown
-- --crawl.
SELECT c.crawl_id FROM crawls c JOIN crawl_runs r USING (crawl_id)
WHERE r.status = 'complete'
ORDER BY c.created_at DESC, c.crawl_id DESC
LIMIT 10;
