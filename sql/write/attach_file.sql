-- A database file attached to the process's DuckDB instance (lib/storage/host.py) under the
-- alias {alias}. Parameters: its path, whether it is read-only.
ATTACH ? AS {alias} (READ_ONLY ?);
