"""The one owner of DuckDB idioms: open the file, load SQL, read rows, run a transaction, write a
partition. Nothing else in linkpipe opens the database, begins a transaction or turns a cursor
into rows.

Every partition write is a single transaction: delete the partition's rows, insert the new ones,
commit. A failure rolls back and leaves the previous rows intact; a re-run gives the same rows.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

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


class StorageError(RuntimeError):
    """The database cannot be opened or written; the message is one line for the user."""


def load_sql(name: str) -> str:
    """Text of ``sql/<name>.sql``; ``name`` is ``schema/...``, ``read/select_...`` or
    ``write/<verb>_...``."""
    return (SQL_DIR / f"{name}.sql").read_text(encoding="utf-8")


def execute(con: duckdb.DuckDBPyConnection, name: str, params: Sequence[Any] = ()) -> None:
    """Run the statement of ``sql/<name>.sql`` with ``?`` parameters."""
    con.execute(load_sql(name), list(params))


def cursor_dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every remaining row of an executed cursor as a dict keyed by column name."""
    names = [d[0] for d in cur.description or []]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def fetch_dicts(
    con: duckdb.DuckDBPyConnection, name: str, params: Sequence[Any] = ()
) -> list[dict[str, Any]]:
    """Rows of the query ``sql/<name>.sql`` as dicts keyed by column name."""
    return cursor_dicts(con.execute(load_sql(name), list(params)))


def iter_dicts(
    con: duckdb.DuckDBPyConnection, name: str, params: Sequence[Any] = (), batch: int = 500
) -> Iterator[dict[str, Any]]:
    """Rows of ``sql/<name>.sql`` streamed ``batch`` at a time (for tables too big to hold)."""
    cur = con.execute(load_sql(name), list(params))
    names = [d[0] for d in cur.description or []]
    while chunk := cur.fetchmany(batch):
        for row in chunk:
            yield dict(zip(names, row, strict=True))


def fetch_arrow(con: duckdb.DuckDBPyConnection, name: str, params: Sequence[Any] = ()) -> pa.Table:
    """Rows of ``sql/<name>.sql`` as one Arrow table (columnar, for site-wide reads)."""
    return con.execute(load_sql(name), list(params)).fetch_arrow_table()


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


def rows_to_arrow(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> pa.Table:
    """Build an Arrow table holding ``columns`` (missing keys become NULL)."""
    return pa.table({c: [row.get(c) for row in rows] for c in columns})


def write_partition(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    tables: dict[str, pa.Table | Sequence[dict[str, Any]] | Iterable[pa.Table]],
    shard: int | None = None,
) -> dict[str, int]:
    """Replace one partition of each given table in ONE transaction; return rows per table.

    Each value is an Arrow table, a list of dicts, or an iterable of Arrow tables (streamed in
    batches, for data that does not fit in memory at once). Missing columns are NULL.
    """
    written: dict[str, int] = {}
    try:
        with transaction(con):
            for table, rows in tables.items():
                written[table] = _replace(con, table, crawl_id, rows, shard)
    finally:
        with suppress(duckdb.Error):
            con.unregister("_linkpipe_batch")
    return written


def _replace(
    con: duckdb.DuckDBPyConnection, table: str, crawl_id: str, rows: Any, shard: int | None
) -> int:
    if table in SHARD_TABLES:
        if shard is None:
            raise ValueError(f"{table} is partitioned by crawl and shard; give a shard")
        delete_sql, params = load_sql("write/delete_shard_partition"), [crawl_id, shard]
    elif table in CRAWL_TABLES:
        delete_sql, params = load_sql("write/delete_crawl_partition"), [crawl_id]
    else:
        raise ValueError(f"unknown partitioned table: {table}")
    columns = table_columns(con, table)
    con.execute(delete_sql.format(table=table), params)
    written = 0
    for batch in _as_batches(rows, columns):
        if batch.num_rows == 0:
            continue
        batch = _with_partition_columns(batch, crawl_id, shard if table in SHARD_TABLES else None)
        cols = [c for c in columns if c in batch.column_names]
        col_list = ", ".join(f'"{c}"' for c in cols)
        con.register("_linkpipe_batch", batch)
        con.execute(f"INSERT INTO {table} ({col_list}) SELECT {col_list} FROM _linkpipe_batch")
        con.unregister("_linkpipe_batch")
        written += batch.num_rows
    return written


def _as_batches(rows: Any, columns: Sequence[str]) -> Iterable[pa.Table]:
    if isinstance(rows, pa.Table):
        return [rows]
    if isinstance(rows, Sequence):
        return [rows_to_arrow(rows, columns)] if rows else []
    return rows


def _with_partition_columns(batch: pa.Table, crawl_id: str, shard: int | None) -> pa.Table:
    n = batch.num_rows
    if "crawl_id" in batch.column_names:
        batch = batch.drop(["crawl_id"])
    batch = batch.append_column("crawl_id", pa.array([crawl_id] * n, pa.string()))
    if shard is not None:
        if "shard" in batch.column_names:
            batch = batch.drop(["shard"])
        batch = batch.append_column("shard", pa.array([shard] * n, pa.int32()))
    return batch


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
