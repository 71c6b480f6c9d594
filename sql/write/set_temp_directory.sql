-- The folder DuckDB spills to, for the whole instance. Parameter: its path.
SET temp_directory = ?;
