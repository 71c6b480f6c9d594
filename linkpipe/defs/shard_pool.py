"""Page-level shards of one step materialized in parallel worker processes.

Each worker is a process forked from a clean server process (``forkserver``) that runs one Dagster run per shard key, recorded
in the same instance as the parent's runs. DuckDB allows one writing process at a time: the
stages open the database only briefly, to read their inputs and to write their partition, and
``storage.open_db`` waits while another process holds the file, so the heavy work of the shards
(extraction, embedding, candidates and anchors) overlaps. Progress reports of the workers are
forwarded to the parent's reporter through a queue.

A failure, Ctrl-C or SIGTERM in the parent terminates the workers at once (``Pool.terminate``);
a worker whose parent process died (``kill -9``) ends itself within a second, so no orphan
keeps writing into the database while the next run starts.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.pool import TERMINATE, AsyncResult, Pool
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Event
from pathlib import Path

from linkpipe.lib import progress

ProgressItem = tuple[str, int, int]
ShardJob = Callable[[list[str], dict[str, str], str, str], None]

_STOP = ("", -1, -1)


def default_workers(n_shards: int) -> int:
    """Worker processes for a step: one per core, at most one per shard (``LINKPIPE_WORKERS``)."""
    configured = os.environ.get("LINKPIPE_WORKERS", "")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    wanted = int(configured) if configured.isdigit() else (cores or 1)
    return max(1, min(wanted, n_shards))


def _worker_init(reports: Queue[ProgressItem], dagster_home: str, parent: int, stop: Event) -> None:
    """In each worker: forward progress reports to the parent, use the parent's instance, and
    end when the parent process is gone or sets ``stop``."""
    os.environ["DAGSTER_HOME"] = dagster_home
    progress.set_reporter(lambda stage, done, total: reports.put((stage, done, total)))
    threading.Thread(target=_end_with, args=(parent, stop), daemon=True).start()


def _end_with(parent: int, stop: Event) -> None:
    """Kill this process as soon as process ``parent`` no longer exists or ``stop`` is set.

    ``stop`` is needed because a worker inside a Dagster run only notes the SIGTERM of
    ``Pool.terminate`` (Dagster defers interrupts during a run) and would then wait for work
    for ever while the pool waits for it to end."""
    while not stop.wait(0.5):
        try:
            os.kill(parent, 0)
        except (ProcessLookupError, PermissionError):  # gone, or its pid now another user's
            os._exit(1)
    os._exit(1)


def _forward(reports: Queue[ProgressItem]) -> None:
    """In the parent: hand the workers' reports to the parent's reporter until told to stop."""
    while True:
        try:
            item = reports.get(timeout=0.5)
        except queue.Empty:
            continue
        if item == _STOP:
            return
        progress.report(*item)


def run_parallel(
    job: ShardJob,
    asset_names: Sequence[str],
    keys: Sequence[dict[str, str]],
    db_path: str | Path,
    model: str,
    workers: int,
) -> None:
    """Run ``job(asset_names, key, db_path, model)`` for every shard key in ``workers``
    processes; the first failure cancels what has not started and is raised here."""
    context = multiprocessing.get_context("forkserver")
    # Workers fork from one server that imported Dagster and linkpipe once (~3 CPU-s a process).
    context.set_forkserver_preload(["linkpipe.defs.runner"])
    reports: Queue[ProgressItem] = context.Queue()
    forwarder = threading.Thread(target=_forward, args=(reports,), daemon=True)
    forwarder.start()
    home = os.environ.get("DAGSTER_HOME", "")
    stop = context.Event()
    try:
        # Leaving the block on a failure or an interrupt terminates the workers at once.
        with context.Pool(workers, _worker_init, (reports, home, os.getpid(), stop)) as pool:
            args = [(list(asset_names), key, str(db_path), model) for key in keys]
            try:
                _wait_all([pool.apply_async(job, a) for a in args])
            except Exception:
                _end_workers(pool, stop)  # a shard failed: idle workers wait holding a lock
                raise
            except BaseException:
                stop.set()  # Ctrl-C or SIGTERM: the workers end themselves, busy ones too
                raise
            pool.close()  # done: let the idle workers exit by themselves
            pool.join()
    finally:
        reports.put(_STOP)
        forwarder.join(timeout=5)


def _end_workers(pool: Pool, stop: Event, within_s: float = 5.0) -> None:
    """End every worker at once, before the pool is terminated.

    The workers end themselves on ``stop`` (those inside a Dagster run too). An idle worker
    waits for its next task holding the task queue's lock; ended there, it never releases it,
    and ``Pool.terminate`` would wait for that lock for ever. So: no replacement workers are
    started, the ended ones are reaped, and a lock they left held is released."""
    pool._worker_handler._state = TERMINATE  # type: ignore[attr-defined]  # no replacements
    stop.set()
    deadline = time.monotonic() + within_s
    for worker in list(pool._pool):  # type: ignore[attr-defined]
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.exitcode is None:
            worker.kill()
            worker.join(1.0)
    lock = pool._inqueue._rlock  # type: ignore[attr-defined]
    lock.acquire(False)  # now ours, or (every worker gone) still held by a dead one
    lock.release()


def _wait_all(results: list[AsyncResult[None]]) -> None:
    """Wait for every result; raise the first failure as soon as it happens."""
    pending = list(results)
    while pending:
        for result in [r for r in pending if r.ready()]:
            result.get()  # raises the job's exception
            pending.remove(result)
        if pending:
            pending[0].wait(0.2)
