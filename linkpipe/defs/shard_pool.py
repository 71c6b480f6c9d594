"""Page-level shards of one step materialized in parallel worker processes.

Each worker is a process forked from a clean server process (``forkserver``) that runs one
Dagster run per shard key, recorded in the same instance as the parent's runs. DuckDB allows
one writing process at a time: the stages open the database only briefly, to read their inputs
and to write their partition, and ``storage.open_db`` waits while another process holds the
file, so the heavy work of the shards (extraction, embedding, candidates and anchors) overlaps.

Each worker talks to the parent over its own pipe (tasks in; progress, done or the error out),
so no lock is shared between processes: a worker can be killed at any moment without leaving
a lock held that the parent or another worker would wait on for ever. A failure, Ctrl-C or
SIGTERM in the parent kills the workers at once; a worker whose parent process died
(``kill -9``) ends itself within a second, so no orphan keeps writing into the database while
the next run starts.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import pickle
import signal
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkServerContext, ForkServerProcess
from pathlib import Path
from typing import Any

from linkpipe.lib import progress
from linkpipe.lib.processes import end_with, worker_count
from linkpipe.lib.threads import limited_threads, threads_per_worker

ShardJob = Callable[[list[str], dict[str, str], str, str], None]
Task = tuple[list[str], dict[str, str], str, str]


class ShardFailed(RuntimeError):
    """The traceback of a shard job's exception, as text (the cause of the re-raised error)."""


def default_workers(n_shards: int) -> int:
    """Worker processes for a step: one per core, at most one per shard (``LINKPIPE_WORKERS``)."""
    return worker_count(n_shards)


def _serve(conn: Connection, job: ShardJob, dagster_home: str, parent: int, threads: int) -> None:
    """A worker: run the tasks the parent sends until it sends None, with ``threads`` threads
    per numeric library (see :mod:`linkpipe.lib.threads`); report back on ``conn``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends us
    os.environ["DAGSTER_HOME"] = dagster_home
    with limited_threads(threads):
        _serve_tasks(conn, job, parent)


def _serve_tasks(conn: Connection, job: ShardJob, parent: int) -> None:
    """Run tasks from ``conn`` until None comes (or the parent is gone)."""
    sending = threading.Lock()  # between this process's threads only

    def send(message: tuple[Any, ...]) -> None:
        with sending:
            conn.send(message)

    progress.set_reporter(lambda stage, done, total: send(("progress", stage, done, total)))
    threading.Thread(target=end_with, args=(parent,), daemon=True).start()
    while True:
        try:
            task = conn.recv()
        except EOFError:  # the parent is gone
            os._exit(1)
        if task is None:
            return
        try:
            job(*task)
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
            send(("error", _portable(exc), traceback.format_exc()))
        else:
            send(("done",))
        # what survives a task (imports, models; its garbage was collected at its end) is
        # left out of later collections: each would walk it all again (~0.2 CPU-s)
        gc.freeze()


def _portable(exc: BaseException) -> BaseException:
    """``exc`` itself when it survives pickling, else a RuntimeError that names it."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any pickling problem
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


@dataclass
class _Worker:
    process: ForkServerProcess
    conn: Connection
    key: dict[str, str] | None = None  # the shard it works on; None when idle

    @classmethod
    def start(cls, context: ForkServerContext, job: ShardJob, threads: int) -> _Worker:
        """A started worker process running :func:`_serve`."""
        ours, theirs = context.Pipe()
        home = os.environ.get("DAGSTER_HOME", "")
        args = (theirs, job, home, os.getpid(), threads)
        process = context.Process(target=_serve, args=args)
        process.start()
        theirs.close()
        return cls(process, ours)

    def give(self, task: Task) -> None:
        self.key = task[1]
        self.conn.send(task)


class ShardPool:
    """Worker processes kept for every page-level step of one run (a context manager).

    Workers start with the first step that needs them and serve the later steps too, so the
    libraries and models a worker loaded (PyTorch, the embedding model, spaCy: some 7 CPU-s a
    process) are loaded once per run, not once per step. A failure kills every worker and is
    raised; the pool is then closed."""

    def __init__(self, job: ShardJob, workers: int, threads: int = 0) -> None:
        """``threads``: library threads of each worker (0: ``cores // workers``)."""
        self.job, self.workers, self.threads = job, workers, threads
        self.context = multiprocessing.get_context("forkserver")
        # Workers fork from one server that imported Dagster and linkpipe once (~3 CPU-s each).
        self.context.set_forkserver_preload(["linkpipe.defs.runner"])
        self.pool: list[_Worker] = []
        self.closed = False

    def __enter__(self) -> ShardPool:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.close(finished=kind is None)

    def run(
        self, asset_names: Sequence[str], keys: Sequence[dict[str, str]], db_path: str | Path,
        model: str,
    ) -> None:  # fmt: skip
        """Run ``job(asset_names, key, db_path, model)`` for every shard key; the first
        failure kills the workers and is raised here."""
        if self.closed:
            raise RuntimeError("the shard pool is closed (an earlier step failed)")
        tasks = [(list(asset_names), dict(key), str(db_path), model) for key in keys]
        n = min(self.workers, len(tasks))
        try:
            threads = self.threads or threads_per_worker(n)
            while len(self.pool) < n:
                self.pool.append(_Worker.start(self.context, self.job, threads))
            _drive(self.pool, tasks)
        except BaseException:
            self.close(finished=False)
            raise

    def close(self, finished: bool) -> None:
        """Let the workers exit (``finished``) or kill them."""
        if not self.closed:
            self.closed = True
            _end(self.pool, finished)


def _drive(pool: list[_Worker], tasks: list[Task]) -> None:
    """Hand out the tasks, forward progress, and raise the first failure as soon as it comes."""
    queued = list(reversed(tasks))
    for worker in pool:
        if queued:
            worker.give(queued.pop())
    while any(w.key is not None for w in pool):
        busy = [w for w in pool if w.key is not None]
        ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout=1.0)
        for worker in busy:
            if worker.conn in ready or worker.conn.poll():
                _receive(worker)
            elif worker.process.sentinel in ready:
                raise _died(worker)
            if worker.key is None and queued:
                worker.give(queued.pop())


def _receive(worker: _Worker) -> None:
    """Read every message waiting from ``worker``: progress, done, or its job's failure."""
    while worker.conn.poll():
        try:
            message = worker.conn.recv()
        except EOFError:
            raise _died(worker) from None
        if message[0] == "progress":
            progress.report(*message[1:])
        elif message[0] == "done":
            worker.key = None
            return
        else:
            raise message[1] from ShardFailed(message[2])


def _died(worker: _Worker) -> RuntimeError:
    """The error for a worker process that ended without reporting its shard."""
    worker.process.join(2.0)
    code = worker.process.exitcode
    return RuntimeError(f"the worker process of shard {worker.key} died (exit code {code})")


def _end(pool: list[_Worker], finished: bool) -> None:
    """Let idle workers exit after a finished step; kill every worker otherwise."""
    for worker in pool:
        if finished:
            with contextlib.suppress(OSError):  # a worker that already died
                worker.conn.send(None)
        else:
            worker.process.kill()
    for worker in pool:
        worker.process.join(5.0 if finished else 2.0)
        if worker.process.exitcode is None:
            worker.process.kill()
            worker.process.join(1.0)
        worker.conn.close()
        if worker.process.exitcode is not None:
            worker.process.close()
