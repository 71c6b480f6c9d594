-- DuckDB's memory limit back to its default.
RESET memory_limit;
