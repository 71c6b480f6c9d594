INSERT OR REPLACE INTO linkpipe_schema (id, sql_hash) VALUES (1, ?);
