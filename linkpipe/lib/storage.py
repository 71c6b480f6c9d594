"""The one owner of DuckDB idioms: open the file, load SQL, read rows or frames, run a
transaction, write a partition. Nothing else in linkpipe opens the database, begins a
transaction, registers a frame or turns a cursor into rows.

Every partition write is a single transaction: delete the partition's rows, insert the new ones
(computed rows, and rows copied unchanged from another crawl), commit. A failure rolls back and
leaves the previous rows intact; a re-run gives the same rows. Pruning old crawls and the
analysts' published copy live in :mod:`linkpipe.lib.retention`, built on these idioms.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from itertools import groupby
from pathlib import Path
from typing import Any, Protocol, TypeAlias, runtime_checkable

import duckdb
import polars as pl
import pyarrow as pa

SQL_DIR: Traversable = files("linkpipe.sql")  # sql/ of the checkout, or linkpipe/sql/ of a wheel

CRAWL_TABLES = frozenset(
    {
        "crawl_pages",
        "crawl_links",
        "crawl_parses",
        "indexable_pages",
        "indexability_thresholds",
        "link_edges",
        "page_link_metrics",
        "ann_indexes",
        "link_opportunities",
        "opportunity_inputs",
        "kept_placements",
        "graph_inputs",
        "cluster_inputs",
        "cannibalisation_pairs",
        "scoring_weights",
        "topic_clusters",
        "cluster_summary",
        "site_models",
        "site_model_inputs",
        "site_terms",
        "site_page_terms",
        "site_names",
        "crawl_runs",
        "whatif_pages",
    }
)
SHARD_TABLES = frozenset(
    {
        "page_summaries",
        "page_sentences",
        "page_text_links",
        "page_embeddings",
        "candidate_pairs",
        "candidate_inputs",
        "candidate_sources",
    }
)

DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file
# Nothing is downloaded at run time: DuckDB never installs an extension on its own.
NO_DOWNLOADS: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False
}

FRAME_ROWS = 1_000_000  # rows a frame of fetch_frames
_BATCH_VIEW = "_linkpipe_batch"
_COPY_VIEW = "_linkpipe_copy_keys"


@runtime_checkable
class ArrowStream(Protocol):
    """A columnar batch DuckDB and polars can read: a polars frame, a pyarrow table, anything
    with the Arrow PyCapsule stream interface."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


Row: TypeAlias = Mapping[str, object]
"""One row to write, keyed by column name."""
PartitionRows: TypeAlias = ArrowStream | Sequence[Row] | Iterable[ArrowStream]
"""What :func:`write_partition` writes into one table: a frame, rows, or a stream of frames."""
SqlParams: TypeAlias = Sequence[object]


@dataclass(frozen=True)
class CopiedRows:
    """Rows of another crawl's partition (the same shard for shard tables), chosen by the value
    of ``key_column``, that a partition write copies unchanged but for ``crawl_id``."""

    from_crawl_id: str
    keys: Sequence[str]
    key_column: str = "url"


class StorageError(RuntimeError):
    """The database cannot be opened or written; the message is one line for the user."""


def load_sql(name: str) -> str:
    """Text of ``sql/<name>.sql``; ``name`` is ``schema/...``, ``read/select_...`` or
    ``write/<verb>_...``."""
    return SQL_DIR.joinpath(f"{name}.sql").read_text(encoding="utf-8")


def execute(con: duckdb.DuckDBPyConnection, name: str, params: SqlParams = ()) -> None:
    """Run the statement of ``sql/<name>.sql`` with ``?`` parameters."""
    con.execute(load_sql(name), list(params))


def cursor_dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every remaining row of an executed cursor as a dict keyed by column name."""
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def fetch_dicts(
    con: duckdb.DuckDBPyConnection, name: str, params: SqlParams = ()
) -> list[dict[str, Any]]:
    """Rows of the query ``sql/<name>.sql`` as dicts keyed by column name."""
    return cursor_dicts(con.execute(load_sql(name), list(params)))


def iter_dicts(
    con: duckdb.DuckDBPyConnection, name: str, params: SqlParams = (), batch: int = 500
) -> Iterator[dict[str, Any]]:
    """Rows of ``sql/<name>.sql`` streamed ``batch`` at a time (for tables too big to hold)."""
    cur = con.execute(load_sql(name), list(params))
    names = [d[0] for d in cur.description or []]
    while chunk := cur.fetchmany(batch):
        for row in chunk:
            yield dict(zip(names, row, strict=True))


def fetch_frame(con: duckdb.DuckDBPyConnection, name: str, params: SqlParams = ()) -> pl.DataFrame:
    """Rows of ``sql/<name>.sql`` as one polars frame (columnar, for site-wide reads)."""
    frame: pl.DataFrame = con.sql(load_sql(name), params=list(params)).pl()
    return frame


def fetch_frames(
    con: duckdb.DuckDBPyConnection, name: str, params: SqlParams = (), rows: int = FRAME_ROWS
) -> Iterator[pl.DataFrame]:
    """Rows of ``sql/<name>.sql`` as polars frames of at most ``rows`` rows, in order (a
    site-wide read whose raw columns are only needed a batch at a time)."""
    reader = con.sql(load_sql(name), params=list(params)).to_arrow_reader(rows)
    for batch in reader:
        frame = pl.from_arrow(batch)
        assert isinstance(frame, pl.DataFrame)
        yield frame


def execute_with_frame(
    con: duckdb.DuckDBPyConnection,
    name: str,
    view: str,
    frame: ArrowStream,
    params: SqlParams = (),
) -> None:
    """Run ``sql/<name>.sql`` with ``frame`` readable as the view ``view`` while it runs."""
    with registered_frame(con, view, frame):
        execute(con, name, params)


@contextmanager
def registered_frame(
    con: duckdb.DuckDBPyConnection, view: str, frame: ArrowStream
) -> Iterator[duckdb.DuckDBPyConnection]:
    """``frame`` readable as the view ``view`` inside the block, unregistered after it."""
    con.register(view, frame)
    try:
        yield con
    finally:
        with suppress(duckdb.Error):
            con.unregister(view)


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN ... COMMIT; any exception rolls back and propagates, leaving earlier rows intact."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def crawl_row(con: duckdb.DuckDBPyConnection, crawl_id: str) -> dict[str, Any] | None:
    """The registered row of a crawl (start URL, source, settings), None when unknown."""
    rows = fetch_dicts(con, "read/select_crawl", [crawl_id])
    return rows[0] if rows else None


def stored_config(db_path: str | Path, crawl_id: str) -> dict[str, Any]:
    """The settings stored with a crawl (``crawls.config_json``), {} when none."""
    with open_db(db_path) as con:
        row = crawl_row(con, crawl_id)
    config: dict[str, Any] = json.loads(row["config_json"] or "{}") if row else {}
    return config


def connect(db_path: str | Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the database file, creating the schema and views when opened for writing."""
    path = Path(db_path)
    if str(db_path) == ":memory:":
        raise StorageError("linkpipe needs a database file, not :memory:")
    if read_only:
        if not path.exists():
            raise StorageError(f"database not found: {path}")
        _refuse_other_formats(path, f"cannot open {path} read-only")
        try:
            return duckdb.connect(str(path), read_only=True, config=NO_DOWNLOADS)
        except duckdb.Error as exc:
            raise StorageError(f"cannot open {path} read-only: {_first_line(exc)}") from exc
    _refuse_other_formats(path, f"cannot open database {path} for writing")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path), config=NO_DOWNLOADS)
    except (OSError, duckdb.Error) as exc:
        raise StorageError(f"cannot open database {path} for writing: {_first_line(exc)}") from exc
    try:
        _ensure_schema(con)
    except duckdb.Error as exc:
        con.close()
        raise StorageError(f"cannot write database {path}: {_first_line(exc)}") from exc
    return con


def _refuse_other_formats(path: Path, failure: str) -> None:
    """Raise StorageError when ``path`` is a non-empty file without DuckDB's header (a SQLite
    file, say, which DuckDB would otherwise try to read through an extension)."""
    if not path.is_file():
        return
    try:
        with path.open("rb") as file:
            head = file.read(12)
    except OSError:
        return  # connect reports it
    if head and head[8:12] != DUCKDB_MAGIC:
        raise StorageError(f"{failure}: not a DuckDB database (found {_format_of(head)})")


def _format_of(head: bytes) -> str:
    """What a file's first bytes say it is, in a few words."""
    return "a SQLite file" if head.startswith(b"SQLite format") else "another kind of file"


def connect_query_only(db_path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open the database read-only for queries typed by a person: no file but the database can
    be read or written (COPY, EXPORT, read_csv, glob, ATTACH of other files), no extension
    installed or loaded, and the settings locked so that none of this can be switched back on.
    DuckDB still lets such a connection ATTACH ':memory:' or re-attach its own file read-write:
    the caller admits only query statements (see ``linkpipe.cli.sql``)."""
    path = Path(db_path)
    if not path.exists():
        raise StorageError(f"database not found: {path}")
    _refuse_other_formats(path, f"cannot open {path} read-only")
    config: dict[str, str | bool | int | float | list[str]] = {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
    }
    try:
        con = duckdb.connect(str(path), read_only=True, config=config)
    except duckdb.Error as exc:
        raise StorageError(f"cannot open {path} read-only: {_first_line(exc)}") from exc
    con.execute("SET lock_configuration = true")
    return con


def _schema_hash() -> str:
    """sha1 of the schema and views this code creates."""
    text = load_sql("schema/create_tables") + load_sql("schema/views")
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def has_current_schema(db_path: str | Path) -> bool:
    """Whether the database file holds exactly this code's schema and views."""
    try:
        with open_db(db_path, read_only=True, wait_s=0) as con:
            rows = fetch_dicts(con, "read/select_schema_hash")
    except (StorageError, duckdb.Error):
        return False
    return [r["sql_hash"] for r in rows] == [_schema_hash()]


def _ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables (with their additive migrations) and the views, unless this file
    already holds exactly this code's schema: one catalog read instead of ~45 ms of DDL on
    every open of a stage."""
    wanted = _schema_hash()
    with suppress(duckdb.CatalogException):
        if [r["sql_hash"] for r in fetch_dicts(con, "read/select_schema_hash")] == [wanted]:
            return
    execute(con, "schema/create_tables")
    execute(con, "schema/views")
    execute(con, "write/upsert_schema_hash", [wanted])


_SHARED = threading.local()  # file -> the connection of an enclosing one_connection block


@contextmanager
def one_connection(db_path: str | Path) -> Iterator[None]:
    """Inside the block every :func:`open_db` of this file (in this thread) uses one connection,
    opened for writing. An open costs about 20 ms of CPU (DuckDB starts a database instance,
    even for an empty file), and a stage's reads open the file many times; use it around a
    stage's reads or its SQL-only work, never around long computation: while it is open, other
    processes wait for the file."""
    key = str(Path(db_path).resolve())
    shared: dict[str, duckdb.DuckDBPyConnection] = _SHARED.__dict__.setdefault("files", {})
    if key in shared:
        yield
        return
    with open_db(db_path) as con:
        shared[key] = con
        try:
            yield
        finally:
            del shared[key]


@contextmanager
def open_db(
    db_path: str | Path, read_only: bool = False, wait_s: float = 120.0
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Context-managed :func:`connect` that waits while another process holds the file lock
    (inside :func:`one_connection`, that block's connection)."""
    files = _SHARED.__dict__.get("files")  # only inside a one_connection block
    shared = files.get(str(Path(db_path).resolve())) if files else None
    if shared is not None:
        yield shared
        return
    deadline = time.monotonic() + wait_s
    while True:
        try:
            con = connect(db_path, read_only=read_only)
            break
        except StorageError as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    try:
        yield con
    finally:
        con.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """Column names of ``table`` in schema order."""
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [r[0] for r in rows]


def rows_to_frame(rows: Sequence[Row], columns: Sequence[str]) -> pl.DataFrame:
    """A frame holding ``columns`` of ``rows`` (missing keys become NULL, types inferred)."""
    return pl.DataFrame({c: [row.get(c) for row in rows] for c in columns}, strict=False)


def write_partition(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    tables: Mapping[str, PartitionRows],
    shard: int | None = None,
    copied: Mapping[str, CopiedRows | Sequence[CopiedRows]] | None = None,
    then: Sequence[tuple[str, SqlParams]] = (),
) -> dict[str, int]:
    """Replace one partition of each given table in ONE transaction; return rows per table.

    Each value of ``tables`` is a frame (polars, or any Arrow table), a sequence of row
    mappings, or an iterable of frames (streamed in batches, for data that does not fit in
    memory at once). Missing columns are NULL; ``crawl_id`` (and ``shard``) are set here, never
    by the caller. ``copied`` adds, per table, rows of another crawl copied by SQL (INSERT ...
    SELECT) without passing through Python (one or more choices of rows per table); a table
    named only there is replaced too. The caller keeps the copied keys and the computed rows
    apart. ``then``: statements (SQL file name, parameters) run after the rows are in, in the
    same transaction.
    """
    copied = copied or {}
    written: dict[str, int] = {}
    try:
        with transaction(con):
            for table in [*tables, *(t for t in copied if t not in tables)]:
                written[table] = _replace(con, table, crawl_id, tables.get(table, ()), shard)
                choices = copied.get(table, ())
                for copy in [choices] if isinstance(choices, CopiedRows) else choices:
                    written[table] += _copy(con, table, crawl_id, copy, shard)
            for name, params in then:
                execute(con, name, params)
    finally:
        for view in (_BATCH_VIEW, _COPY_VIEW):
            with suppress(duckdb.Error):
                con.unregister(view)
    return written


def _partition_keys(table: str, crawl_id: str, shard: int | None) -> list[object]:
    """The partition key values of ``table``: [crawl_id] or [crawl_id, shard]."""
    if table in SHARD_TABLES:
        if shard is None:
            raise ValueError(f"{table} is partitioned by crawl and shard; give a shard")
        return [crawl_id, shard]
    if table in CRAWL_TABLES:
        return [crawl_id]
    raise ValueError(f"unknown partitioned table: {table}")


def _replace(
    con: duckdb.DuckDBPyConnection,
    table: str,
    crawl_id: str,
    rows: PartitionRows,
    shard: int | None,
) -> int:
    """Delete the table's partition, then insert every batch of ``rows``; rows inserted."""
    keys = _partition_keys(table, crawl_id, shard)
    delete = "write/delete_shard_partition" if len(keys) == 2 else "write/delete_crawl_partition"
    columns = table_columns(con, table)
    con.execute(load_sql(delete).format(table=table), keys)
    key_columns = ["crawl_id", "shard"][: len(keys)]
    batches = (b for b in _as_frames(rows, columns) if b.height)
    written = 0
    for cols, run in groupby(batches, lambda b: _given(b, columns, key_columns)):
        written += _insert_run(con, table, list(cols), key_columns, keys, run)
    return written


def _given(batch: pl.DataFrame, columns: Sequence[str], keys: Sequence[str]) -> tuple[str, ...]:
    """The table's columns the batch gives (in the table's order), partition keys left out."""
    return tuple(c for c in columns if c in batch.columns and c not in keys)


def _insert_run(
    con: duckdb.DuckDBPyConnection,
    table: str,
    cols: list[str],
    key_columns: list[str],
    keys: list[object],
    batches: Iterable[pl.DataFrame],
) -> int:
    """Insert consecutive batches giving the same columns with one statement, reading them as
    one Arrow stream cast to the table's types (a batch whose values are all NULL has no type
    of its own). In one statement DuckDB writes full row groups to the file as it goes; a
    statement per batch kept every row of the transaction in memory until the commit (a 100k
    site's shard of a million candidate rows: 1.8 GB against 0.9 at its peak)."""
    names = ", ".join(f'"{c}"' for c in cols)
    schema = con.sql(f"SELECT {names} FROM {table} LIMIT 0").to_arrow_table().schema
    count = 0

    def stream() -> Iterator[pa.RecordBatch]:
        nonlocal count
        for batch in batches:
            count += batch.height
            yield from batch.select(cols).to_arrow().cast(schema).to_batches()

    con.register(_BATCH_VIEW, pa.RecordBatchReader.from_batches(schema, stream()))
    select_list = ", ".join([names, *("?" for _ in key_columns)])
    insert_list = ", ".join([names, *(f'"{c}"' for c in key_columns)])
    con.execute(
        f"INSERT INTO {table} ({insert_list}) SELECT {select_list} FROM {_BATCH_VIEW}", keys
    )
    con.unregister(_BATCH_VIEW)
    return count


def _copy(
    con: duckdb.DuckDBPyConnection,
    table: str,
    crawl_id: str,
    copy: CopiedRows,
    shard: int | None,
) -> int:
    """Insert the chosen rows of ``copy.from_crawl_id`` into the partition; rows copied."""
    keys = _partition_keys(table, crawl_id, shard)
    if copy.from_crawl_id == crawl_id:
        raise ValueError(f"{table}: rows cannot be copied from the partition being written")
    if copy.key_column not in table_columns(con, table):
        raise ValueError(f"{table} has no column {copy.key_column!r} to choose copied rows by")
    if not copy.keys:
        return 0
    name = "write/insert_copied_shard_rows" if len(keys) == 2 else "write/insert_copied_crawl_rows"
    sql = load_sql(name).format(table=table, key=f'"{copy.key_column}"')
    con.register(_COPY_VIEW, pl.DataFrame({"key": list(copy.keys)}, schema={"key": pl.String}))
    result = con.execute(sql, [crawl_id, copy.from_crawl_id, *keys[1:]]).fetchone()
    con.unregister(_COPY_VIEW)
    return int(result[0]) if result else 0


def _as_frames(rows: PartitionRows, columns: Sequence[str]) -> Iterator[pl.DataFrame]:
    """The batches of ``rows`` as polars frames (row mappings become one frame)."""
    if isinstance(rows, pl.DataFrame):
        yield rows
    elif isinstance(rows, ArrowStream):
        yield pl.DataFrame(rows)
    elif isinstance(rows, Sequence):
        if rows:
            yield rows_to_frame(rows, columns)
    else:
        for batch in rows:
            yield batch if isinstance(batch, pl.DataFrame) else pl.DataFrame(batch)
