"""The one owner of DuckDB idioms: open the file, load SQL, read rows or frames, run a
transaction, write a partition. Nothing else in linkpipe opens the database, begins a
transaction, registers a frame or turns a cursor into rows.

Three modules, imported from here: :mod:`.queries` runs the SQL of ``sql/``,
:mod:`.connection` opens the file, :mod:`.partitions` writes a partition in one transaction.
Pruning old crawls and the analysts' published copy live in :mod:`linkpipe.lib.retention`,
built on these idioms.
"""

from linkpipe.lib.storage.connection import (
    DUCKDB_MAGIC,
    NO_DOWNLOADS,
    StorageError,
    connect,
    connect_query_only,
    crawl_row,
    has_current_schema,
    keep_open,
    one_connection,
    open_db,
    stored_config,
)
from linkpipe.lib.storage.partitions import (
    CRAWL_TABLES,
    SHARD_TABLES,
    CopiedRows,
    PartitionRows,
    Row,
    rows_to_frame,
    write_partition,
)
from linkpipe.lib.storage.queries import (
    FRAME_ROWS,
    SQL_DIR,
    ArrowStream,
    SqlParams,
    cursor_dicts,
    execute,
    execute_with_frame,
    fetch_dicts,
    fetch_frame,
    fetch_frames,
    iter_dicts,
    load_sql,
    memory_limit,
    registered_frame,
    table_columns,
    transaction,
)

__all__ = [
    "CRAWL_TABLES",
    "DUCKDB_MAGIC",
    "FRAME_ROWS",
    "NO_DOWNLOADS",
    "SHARD_TABLES",
    "SQL_DIR",
    "ArrowStream",
    "CopiedRows",
    "PartitionRows",
    "Row",
    "SqlParams",
    "StorageError",
    "connect",
    "connect_query_only",
    "crawl_row",
    "cursor_dicts",
    "execute",
    "execute_with_frame",
    "fetch_dicts",
    "fetch_frame",
    "fetch_frames",
    "has_current_schema",
    "iter_dicts",
    "keep_open",
    "load_sql",
    "memory_limit",
    "one_connection",
    "open_db",
    "registered_frame",
    "rows_to_frame",
    "stored_config",
    "table_columns",
    "transaction",
    "write_partition",
]
