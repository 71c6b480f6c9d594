"""Database files attached to one in-memory DuckDB instance per process, not each opened by
an instance of its own.

Starting a DuckDB instance costs ~13 ms of CPU whatever the file (its built-in catalog: an
empty in-memory database costs the same), and linkpipe opens its file very often: a stage
closes it between batches so that the other processes of a run can take it (a 10k-page
crawl's placement opens it ~190 times, once per group of sources). Attaching the file to an
instance the process keeps costs ~3 ms, and detaching it, once the last connection of the
process to it closes, checkpoints it and lets the file lock go as closing an instance did
(a :func:`keep_attached` block keeps it attached until the block ends).

A connection here is a cursor of the host instance whose default database is the attached
file, so the SQL of ``sql/`` reads it unqualified. When another instance of this process
already has the file (a caller of ``duckdb.connect``), DuckDB refuses to attach it a second
time, and the caller connects to that instance instead (:func:`attach` returns None).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from linkpipe.lib.storage.queries import load_sql

ALREADY_ATTACHED = "already attached by database"  # DuckDB's words: another instance has it


@dataclass
class _Attached:
    alias: str
    read_only: bool
    users: int = 0
    keeper: duckdb.DuckDBPyConnection | None = None  # see keep_attached


_LOCK = threading.Lock()
_HOST: list[duckdb.DuckDBPyConnection] = []  # the process's instance, made at the first use
_FILES: dict[str, _Attached] = {}  # resolved path -> its attachment
_CURSORS: dict[int, str] = {}  # id of each connection handed out -> its file's path
_KEPT: dict[str, int] = {}  # resolved path -> the keep_attached blocks keeping it attached


def attach(
    path: Path, read_only: bool, config: dict[str, str | bool | int | float | list[str]]
) -> duckdb.DuckDBPyConnection | None:
    """A connection to the file ``path`` attached to the process's host instance (made with
    ``config`` at the first call); None when another instance of this process holds the file.
    A read-write open of a file this process holds read-only is refused as DuckDB refuses a
    second configuration. Release it with :func:`release`, not ``close``."""
    key = str(path.resolve())
    with _LOCK:
        host = _host(config)
        held = _FILES.get(key)
        kept_only = held is not None and held.keeper is not None and held.users == 1
        if held is not None and kept_only and held.read_only and not read_only:
            _detach(key, held)  # kept attached read-only by keep_attached: attached again
            held = None
        if held is None:
            alias = "lp_" + hashlib.sha1(key.encode()).hexdigest()[:16]
            try:
                host.execute(_sql("attach_file", alias), [key, read_only])
            except duckdb.Error as exc:
                if ALREADY_ATTACHED in str(exc):
                    return None
                raise
            held = _FILES[key] = _Attached(alias, read_only)
            if len(_FILES) == 1:
                _spill_beside(host, key)
        elif held.read_only and not read_only:
            raise duckdb.ConnectionException(
                f"{path} is open read-only in this process and cannot be opened for writing"
            )
        cursor = host.cursor()
        held.users += 1
        _CURSORS[id(cursor)] = key
    try:
        cursor.execute(_sql("use_file", held.alias))
    except BaseException:
        release(cursor)
        raise
    return cursor


def owns(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether ``con`` is a connection of :func:`attach` not yet released."""
    return id(con) in _CURSORS


def release(con: duckdb.DuckDBPyConnection) -> None:
    """Close a connection of :func:`attach`; the last of its file's detaches the file (DuckDB
    checkpoints it and lets its lock go), unless a :func:`keep_attached` block keeps it."""
    with _LOCK:
        con.close()
        key = _CURSORS.pop(id(con), "")
        held = _FILES.get(key)
        if held is None:
            return
        if held.users == 1 and key in _KEPT and held.keeper is None:
            held.keeper = _HOST[0].cursor()  # open: other processes wait as for a connection
            held.keeper.execute(_sql("use_file", held.alias))
            return
        held.users -= 1
        if key not in _KEPT and held.users == int(held.keeper is not None):
            _detach(key, held)  # (a connection that outlived a keep_attached block: its keeper)


def _detach(key: str, held: _Attached) -> None:
    """Detach a file (DuckDB checkpoints it and lets its lock go), closing the connection a
    :func:`keep_attached` block held; a failed detach keeps it recorded: the next release
    tries again."""
    if held.keeper is not None:
        held.keeper.close()
        held.keeper, held.users = None, held.users - 1
    _HOST[0].execute(_sql("detach_file", held.alias))
    del _FILES[key]


@contextlib.contextmanager
def keep_attached(path: Path) -> Iterator[None]:
    """Inside the block the file stays attached when its last connection is released, and
    is detached (checkpointed) when the block ends: a stage that opens the file for each
    batch attaches and checkpoints it once. Only where no other process needs the file
    meanwhile: it keeps the file's lock."""
    key = str(path.resolve())
    with _LOCK:
        _KEPT[key] = _KEPT.get(key, 0) + 1
    try:
        yield
    finally:
        with _LOCK:
            _KEPT[key] -= 1
            if not _KEPT[key]:
                del _KEPT[key]
                held = _FILES.get(key)
                if held is not None and held.users == int(held.keeper is not None):
                    _detach(key, held)


def attached(path: Path) -> bool:
    """Whether the file is attached to this process's host instance now."""
    return str(path.resolve()) in _FILES


def _host(config: dict[str, str | bool | int | float | list[str]]) -> duckdb.DuckDBPyConnection:
    """The process's host instance (an empty in-memory database), made on first use."""
    if not _HOST:
        _HOST.append(duckdb.connect(":memory:", config=config))
    return _HOST[0]


def _spill_beside(host: duckdb.DuckDBPyConnection, key: str) -> None:
    """Spill to ``<file>.tmp``, as an instance of the file itself would, not to ``.tmp`` in
    the working directory (DuckDB keeps the first folder it spilled to)."""
    with contextlib.suppress(duckdb.Error):
        host.execute(load_sql("write/set_temp_directory"), [key + ".tmp"])


def _sql(name: str, alias: str) -> str:
    """The statement ``sql/write/<name>.sql`` for the attachment ``alias`` (a name this module
    makes: ``lp_`` and hex digits)."""
    return load_sql(f"write/{name}").format(alias=alias)


def _forget_in_child() -> None:
    """A forked child must not use its parent's instance (its threads are not in the child):
    it makes its own. The parent's object is leaked on purpose (one reference more than its
    holders), so that the child's exit never runs its destructor, which would join threads
    the child does not have."""
    global _LOCK
    _LOCK = threading.Lock()  # another thread may have held it at the fork
    if _HOST:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(_HOST.pop()))
    _FILES.clear()
    _CURSORS.clear()
    _KEPT.clear()


os.register_at_fork(after_in_child=_forget_in_child)
