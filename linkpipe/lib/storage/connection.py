"""Opening the database file: its format checked, the schema created once per version of the
SQL, a lock held by another process waited for, the file attached to the process's DuckDB
instance (:mod:`.host`), one connection shared inside a block; and the registered crawl's
settings."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import duckdb

from linkpipe.lib.storage import host
from linkpipe.lib.storage.queries import execute, fetch_dicts, load_sql

DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file

# Nothing is downloaded at run time: DuckDB never installs an extension on its own.
NO_DOWNLOADS: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False
}


class StorageError(RuntimeError):
    """The database cannot be opened or written; the message is one line for the user."""


_SHARED = threading.local()  # file -> the connection of an enclosing one_connection block


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
    con = _opened(db_path, read_only, lambda path: _instance(path, read_only))
    assert con is not None  # an instance of its own is always made
    return con


def _instance(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A DuckDB instance of the file itself."""
    return duckdb.connect(str(path), read_only=read_only, config=NO_DOWNLOADS)


def _opened(
    db_path: str | Path,
    read_only: bool,
    open_file: Callable[[Path], duckdb.DuckDBPyConnection | None],
) -> duckdb.DuckDBPyConnection | None:
    """``open_file(path)`` once the file's format is checked, its errors as StorageError, the
    schema and views created when opened for writing (None from ``open_file``: None)."""
    path = Path(db_path)
    if str(db_path) == ":memory:":
        raise StorageError("linkpipe needs a database file, not :memory:")
    if read_only:
        if not path.exists():
            raise StorageError(f"database not found: {path}")
        _refuse_other_formats(path, f"cannot open {path} read-only")
        try:
            return open_file(path)
        except duckdb.Error as exc:
            raise StorageError(f"cannot open {path} read-only: {_first_line(exc)}") from exc
    _refuse_other_formats(path, f"cannot open database {path} for writing")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        con = open_file(path)
    except (OSError, duckdb.Error) as exc:
        raise StorageError(f"cannot open database {path} for writing: {_first_line(exc)}") from exc
    if con is None:
        return None
    try:
        _ensure_schema(con)
    except duckdb.Error as exc:
        _close(con)
        raise StorageError(f"cannot write database {path}: {_first_line(exc)}") from exc
    return con


def _close(con: duckdb.DuckDBPyConnection) -> None:
    """Close a connection of :func:`open_db` (attached to the process's host instance: the
    file detached when this was the process's last connection to it)."""
    if host.owns(con):
        host.release(con)
    else:
        con.close()


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
    texts_by_page = "page_sentences" in _base_tables(con)  # code before the texts by key
    execute(con, "schema/create_tables")
    if texts_by_page:
        execute(con, "schema/migrate_page_texts")
    execute(con, "schema/views")
    execute(con, "write/upsert_schema_hash", [wanted])


def _base_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The names of the open file's tables (not views)."""
    rows = fetch_dicts(con, "read/select_relations")
    return {r["table_name"] for r in rows if r["table_type"] == "BASE TABLE"}


@contextmanager
def one_connection(db_path: str | Path) -> Iterator[None]:
    """Inside the block every :func:`open_db` of this file (in this thread) uses one connection,
    opened for writing. An open costs a few ms of CPU (the file attached to the process's
    instance, :mod:`.host`) and its close a checkpoint, and a stage's reads open the file many
    times; use it around a stage's reads or its SQL-only work, never around long computation:
    while it is open, other processes wait for the file."""
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
def keep_open(db_path: str | Path) -> Iterator[None]:
    """Inside the block the file stays attached to this process between its opens and is
    checkpointed once, when the block ends (:func:`.host.keep_attached`): for a run's steps
    whose shards all run in this process, which open it a batch at a time (an open 5.7 ->
    1.4 ms of CPU; the 10k site's 1 % edited refresh opens it ~140 times). Other processes
    wait for the file until the block ends."""
    with host.keep_attached(Path(db_path)):
        yield


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
            con = _opened(db_path, read_only, lambda path: _attached(path, read_only))
            if con is None:  # another instance of this process holds the file: share it
                con = connect(db_path, read_only=read_only)
            break
        except StorageError as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    try:
        yield con
    finally:
        _close(con)


def _attached(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection | None:
    """The file attached to the process's host instance (see :mod:`.host`)."""
    return host.attach(path, read_only, NO_DOWNLOADS)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
