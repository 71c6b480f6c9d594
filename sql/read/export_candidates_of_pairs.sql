-- The full candidate rows (evidence and placements) of the pairs listed in the registered
-- view _linkpipe_pairs (position, source_url, target_url) of a crawl, in the order of
-- position, written to a Parquet file (linkpipe.lib.stages.link_opportunities.row_reader):
-- one scan of the crawl's rows, sorted out of core, read back a batch at a time.
-- Parameters: crawl_id, the file's path, rows a row group.
COPY (
    SELECT c.* EXCLUDE (crawl_id, shard)
    FROM candidate_pairs c
    JOIN _linkpipe_pairs k ON k.source_url = c.source_url AND k.target_url = c.target_url
    WHERE c.crawl_id = ?
    ORDER BY k.position
) TO ? (FORMAT parquet, ROW_GROUP_SIZE ?);
