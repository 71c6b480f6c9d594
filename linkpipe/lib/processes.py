"""Work of one step spread over worker processes, results in order.

:func:`ordered_map` runs a function over a stream of items in processes forked from a clean
server process (``forkserver``: nothing of the caller's threads, locks or open databases is
inherited), with a few items in flight per worker, so that memory holds a few batches and not
the whole stream. A worker failure, or the caller leaving early, ends every worker at once; a
worker whose caller died (``kill -9``) ends itself within a second. The site models' workers
never open the database (the caller reads and writes it); the kept pairs' placing workers
(``stages/kept_anchors.py``) read texts and write the parse and word-vector caches as the
candidate step's shard workers do, each open short and waiting for the file's lock.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

from linkpipe.lib.threads import cores

Item = TypeVar("Item")
Result = TypeVar("Result")
AHEAD = 2  # items in flight per worker


def worker_count(limit: int) -> int:
    """Worker processes for a step: one per core (``LINKPIPE_WORKERS`` when set), at most
    ``limit``."""
    configured = os.environ.get("LINKPIPE_WORKERS", "")
    wanted = int(configured) if configured.isdigit() else cores()
    return max(1, min(wanted, limit))


def end_with(parent: int) -> None:
    """Kill this process as soon as process ``parent`` no longer exists (run in a thread)."""
    while True:
        try:
            os.kill(parent, 0)
        except (ProcessLookupError, PermissionError):  # gone, or its pid now another user's
            os._exit(1)
        threading.Event().wait(0.5)


def _start_worker(parent: int, setup: Callable[..., None] | None, args: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller handles Ctrl-C and ends us
    threading.Thread(target=end_with, args=(parent,), daemon=True).start()
    if setup is not None:
        setup(*args)


def ordered_map(
    func: Callable[[Item], Result],
    items: Iterable[Item],
    workers: int,
    setup: Callable[..., None] | None = None,
    setup_args: tuple[Any, ...] = (),
) -> Iterator[Result]:
    """``func`` of each item, in the items' order, computed by ``workers`` processes (each
    runs ``setup(*setup_args)`` first: the state every item needs, sent once). ``func`` and
    ``setup`` must be importable module-level functions."""
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker,
        initargs=(os.getpid(), setup, setup_args),
    )  # fmt: skip
    pending: deque[Future[Result]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(func, item))
            if len(pending) >= AHEAD * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    except BaseException:
        _kill(pool, pending)
        raise
    pool.shutdown(wait=True)


def _kill(pool: ProcessPoolExecutor, pending: deque[Future[Any]]) -> None:
    """End the pool's processes now, whatever they are doing."""
    for future in pending:
        future.cancel()
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.kill()
    for process in processes:
        process.join(timeout=5)
