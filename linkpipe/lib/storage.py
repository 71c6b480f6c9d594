"""The one owner of DuckDB idioms: open the file, load SQL, read rows or frames, run a
transaction, write a partition. Nothing else in linkpipe opens the database, begins a
transaction, registers a frame or turns a cursor into rows.

Every partition write is a single transaction: delete the partition's rows, insert the new ones,
commit. A failure rolls back and leaves the previous rows intact; a re-run gives the same rows.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Protocol, TypeAlias, runtime_checkable

import duckdb
import polars as pl

SQL_DIR = Path(__file__).resolve().parents[2] / "sql"

CRAWL_TABLES = frozenset(
    {
        "crawl_pages",
        "crawl_links",
        "indexable_pages",
        "link_edges",
        "page_link_metrics",
        "ann_indexes",
        "link_opportunities",
        "cannibalisation_pairs",
        "topic_clusters",
        "cluster_summary",
    }
)
SHARD_TABLES = frozenset(
    {"page_summaries", "page_sentences", "page_text_links", "page_embeddings", "candidate_pairs"}
)


_BATCH_VIEW = "_linkpipe_batch"


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


class StorageError(RuntimeError):
    """The database cannot be opened or written; the message is one line for the user."""


def load_sql(name: str) -> str:
    """Text of ``sql/<name>.sql``; ``name`` is ``schema/...``, ``read/select_...`` or
    ``write/<verb>_...``."""
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


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


def execute_with_frame(
    con: duckdb.DuckDBPyConnection,
    name: str,
    view: str,
    frame: ArrowStream,
    params: SqlParams = (),
) -> None:
    """Run ``sql/<name>.sql`` with ``frame`` readable as the view ``view`` while it runs."""
    con.register(view, frame)
    try:
        execute(con, name, params)
    finally:
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
        try:
            return duckdb.connect(str(path), read_only=True)
        except duckdb.Error as exc:
            raise StorageError(f"cannot open {path} read-only: {_first_line(exc)}") from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path))
    except (OSError, duckdb.Error) as exc:
        raise StorageError(f"cannot open database {path} for writing: {_first_line(exc)}") from exc
    try:
        execute(con, "schema/create_tables")
        execute(con, "schema/views")
    except duckdb.Error as exc:
        con.close()
        raise StorageError(f"cannot write database {path}: {_first_line(exc)}") from exc
    return con


@contextmanager
def open_db(
    db_path: str | Path, read_only: bool = False, wait_s: float = 120.0
) -> Iterator[duckdb.DuckDBPyConnection]:
    """Context-managed :func:`connect` that waits while another process holds the file lock."""
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
) -> dict[str, int]:
    """Replace one partition of each given table in ONE transaction; return rows per table.

    Each value is a frame (polars, or any Arrow table), a sequence of row mappings, or an
    iterable of frames (streamed in batches, for data that does not fit in memory at once).
    Missing columns are NULL; ``crawl_id`` (and ``shard``) are set here, never by the caller.
    """
    written: dict[str, int] = {}
    try:
        with transaction(con):
            for table, rows in tables.items():
                written[table] = _replace(con, table, crawl_id, rows, shard)
    finally:
        with suppress(duckdb.Error):
            con.unregister(_BATCH_VIEW)
    return written


def _replace(
    con: duckdb.DuckDBPyConnection,
    table: str,
    crawl_id: str,
    rows: PartitionRows,
    shard: int | None,
) -> int:
    """Delete the table's partition, then insert every batch of ``rows``; rows inserted."""
    if table in SHARD_TABLES:
        if shard is None:
            raise ValueError(f"{table} is partitioned by crawl and shard; give a shard")
        delete_sql, keys = load_sql("write/delete_shard_partition"), [crawl_id, shard]
    elif table in CRAWL_TABLES:
        delete_sql, keys = load_sql("write/delete_crawl_partition"), [crawl_id]
    else:
        raise ValueError(f"unknown partitioned table: {table}")
    columns = table_columns(con, table)
    con.execute(delete_sql.format(table=table), keys)
    key_columns = ["crawl_id", "shard"][: len(keys)]
    written = 0
    for batch in _as_frames(rows, columns):
        if batch.height == 0:
            continue
        cols = [c for c in columns if c in batch.columns and c not in key_columns]
        insert_list = ", ".join(f'"{c}"' for c in [*cols, *key_columns])
        select_list = ", ".join([*(f'"{c}"' for c in cols), *("?" for _ in key_columns)])
        con.register(_BATCH_VIEW, batch)
        con.execute(
            f"INSERT INTO {table} ({insert_list}) SELECT {select_list} FROM {_BATCH_VIEW}", keys
        )
        con.unregister(_BATCH_VIEW)
        written += batch.height
    return written


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


def publish_copy(db_path: str | Path) -> Path:
    """Copy the database to ``<name>.published.duckdb`` for readers; return the copy's path.

    The copy is written beside the original and moved into place, so readers never see a
    half-written file.
    """
    src = Path(db_path)
    dest = src.with_name(src.stem + ".published.duckdb")
    tmp = src.with_name(src.stem + ".publishing.tmp")
    con = duckdb.connect(str(src))
    try:
        con.execute("CHECKPOINT")
    finally:
        con.close()
    shutil.copyfile(src, tmp)
    tmp.replace(dest)
    return dest
