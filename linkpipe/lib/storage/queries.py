"""Running the SQL of ``sql/``: load a statement, execute it, read its rows as dicts or polars
frames, register a frame as a view, run a transaction."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, Protocol, TypeAlias, runtime_checkable

import duckdb
import polars as pl

SQL_DIR: Traversable = files("linkpipe.sql")  # sql/ of the checkout, or linkpipe/sql/ of a wheel

FRAME_ROWS = 1_000_000  # rows a frame of fetch_frames

SqlParams: TypeAlias = Sequence[object]


@runtime_checkable
class ArrowStream(Protocol):
    """A columnar batch DuckDB and polars can read: a polars frame, a pyarrow table, anything
    with the Arrow PyCapsule stream interface."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


def load_sql(name: str) -> str:
    """Text of ``sql/<name>.sql``; ``name`` is ``schema/...``, ``read/select_...`` or
    ``write/<verb>_...``."""
    return SQL_DIR.joinpath(f"{name}.sql").read_text(encoding="utf-8")


def execute(con: duckdb.DuckDBPyConnection, name: str, params: SqlParams = ()) -> None:
    """Run the statement of ``sql/<name>.sql`` with ``?`` parameters."""
    con.execute(load_sql(name), list(params))


@contextmanager
def memory_limit(con: duckdb.DuckDBPyConnection, size: str) -> Iterator[None]:
    """DuckDB's memory for the statements of the block, such as "256MB" (beyond it DuckDB
    spills or evicts the column data it caches: a read's pages would otherwise stay in the
    process until the connection closes)."""
    execute(con, "write/set_memory_limit", [size])
    try:
        yield
    finally:
        execute(con, "write/reset_memory_limit")


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


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """Column names of ``table`` of the connection's database in schema order (another file
    attached to the same instance may have a table of that name too)."""
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
        "AND table_catalog = current_database() AND table_schema = 'main' "
        "ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [r[0] for r in rows]
