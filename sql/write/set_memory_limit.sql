-- DuckDB's memory limit for this database instance (it spills beyond). Parameters: the limit.
SET memory_limit = ?;
