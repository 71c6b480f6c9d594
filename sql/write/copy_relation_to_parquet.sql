-- One table or view (name checked against select_relations) to a Parquet file; returns the rows.
COPY (SELECT * FROM query_table(?)) TO ? (FORMAT parquet, COMPRESSION zstd);
