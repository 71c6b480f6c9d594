SELECT sql_hash FROM linkpipe_schema WHERE id = 1;
