"""How a crawl's run goes (``crawl_runs``): running, partial, complete, failed, interrupted or
killed, and which process owns it, so that views show a crawl only once its graph completed and
a run whose process died is found and recorded as killed.

An owner is ``host:pid:start`` where ``start`` is the process's start time in clock ticks since
boot (``/proc/PID/stat``), so a recycled pid is not mistaken for the process that died.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Literal

import duckdb

from linkpipe.lib.storage import execute, fetch_dicts, open_db

RunStatus = Literal["running", "partial", "complete", "failed", "interrupted", "killed"]


def _start_ticks(pid: int) -> str | None:
    """The start time of process ``pid`` (field 22 of /proc/PID/stat), None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]  # fields after "(comm)" start at field 3


def process_owner(pid: int | None = None) -> str:
    """The owner token of process ``pid`` (default: this one)."""
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid) or ''}"


def owner_alive(owner: str) -> bool:
    """Whether the process of an owner token still runs. Owners on another host count as
    alive: this machine cannot tell, and their runs are theirs to finish."""
    host, _, rest = owner.partition(":")
    pid_text, _, ticks = rest.partition(":")
    if host != socket.gethostname():
        return True
    if not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if not Path("/proc").is_dir():  # no procfs: signal 0 tells whether the pid exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return _start_ticks(pid) == ticks if ticks else _start_ticks(pid) is not None


def start_run(db_path: str | Path, crawl_id: str, step: str) -> None:
    """Record that this process runs ``crawl_id`` (first at ``step``)."""
    with open_db(db_path) as con:
        execute(con, "write/start_crawl_run", [crawl_id, step, process_owner()])


def set_step(db_path: str | Path, crawl_id: str, step: str) -> None:
    """Record the step the run of ``crawl_id`` is in."""
    with open_db(db_path) as con:
        execute(con, "write/set_crawl_run_step", [step, crawl_id])


def finish_run(
    con: duckdb.DuckDBPyConnection, crawl_id: str, status: RunStatus, error: str | None = None
) -> None:
    """Record how the run of ``crawl_id`` ended (``error``: one line)."""
    line = error.strip().splitlines()[0][:500] if error and error.strip() else None
    execute(con, "write/finish_crawl_run", [crawl_id, status, line])


def finish_run_in(
    db_path: str | Path, crawl_id: str, status: RunStatus, error: str | None = None
) -> None:
    """:func:`finish_run` on the database file at ``db_path``."""
    with open_db(db_path) as con:
        finish_run(con, crawl_id, status, error)


def mark_dead_runs(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Record as ``killed`` every run still marked running whose process is gone; return them."""
    dead = [r for r in fetch_dicts(con, "read/select_running_crawl_runs") if not _alive(r)]
    for run in dead:
        where = f" during {run['step']}" if run["step"] else ""
        finish_run(con, run["crawl_id"], "killed", f"the process running it died{where}")
    return [r["crawl_id"] for r in dead]


def _alive(run: dict[str, object]) -> bool:
    owner = run.get("owner")
    return isinstance(owner, str) and owner_alive(owner)


def run_of(con: duckdb.DuckDBPyConnection, crawl_id: str) -> dict[str, object] | None:
    """The ``crawl_runs`` row of ``crawl_id``, None when it has none."""
    rows = fetch_dicts(con, "read/select_crawl_run", [crawl_id])
    return rows[0] if rows else None
