"""Threads of the numeric libraries (OpenBLAS, OpenMP, PyTorch, FAISS) in one process.

linkpipe's page-level shards run in one worker process per core. Each library's own thread
pool would otherwise start a thread per core in every worker: on a machine with as many workers
as cores those threads only wait for each other, spinning, and add CPU time without finishing
sooner (measured: ``candidate_pairs`` of one shard 56 -> 36 CPU-s, embeddings 17 -> 15, see
docs/benchmarks.md). A worker therefore runs with ``cores // workers`` threads.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from threadpoolctl import threadpool_limits

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# libraries with thread pools of their own: (module, getter, setter)
LIBRARIES = (
    ("torch", "get_num_threads", "set_num_threads"),
    ("faiss", "omp_get_max_threads", "omp_set_num_threads"),
)


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def threads_per_worker(workers: int) -> int:
    """Library threads for each of ``workers`` processes sharing this machine's cores."""
    return max(1, cores() // max(1, workers))


@contextlib.contextmanager
def limited_threads(threads: int) -> Iterator[None]:
    """Run the block with at most ``threads`` threads per numeric library: the libraries
    loaded now (through threadpoolctl, PyTorch and FAISS by their own calls) and those loaded
    inside the block (through the environment variables they read when they start)."""
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update({name: str(threads) for name in THREAD_VARIABLES})
    # a library first loaded inside the block gets the process's usual count back after it
    configured = saved["OMP_NUM_THREADS"] or ""
    usual = int(configured) if configured.isdigit() and int(configured) > 0 else cores()
    before = _set_threads(None)
    try:
        with threadpool_limits(limits=threads):
            _set_threads(threads)
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        _restore_threads(before, usual)


def _set_threads(threads: int | None) -> list[int | None]:
    """Each of :data:`LIBRARIES`' thread count now (None: not loaded), set to ``threads`` when
    given."""
    return [_library_threads(lib, threads) for lib in LIBRARIES]


def _restore_threads(before: list[int | None], usual: int) -> None:
    """Set each library back to its count in ``before`` (``usual`` if it was loaded since)."""
    for lib, count in zip(LIBRARIES, before, strict=True):
        _library_threads(lib, count or usual)


def _library_threads(lib: tuple[str, str, str], threads: int | None) -> int | None:
    """A library's thread count now, set to ``threads`` when given (only if it is loaded)."""
    name, get, put = lib
    module = sys.modules.get(name)
    if module is None or not hasattr(module, get):
        return None
    before = int(getattr(module, get)())
    if threads is not None:
        getattr(module, put)(threads)
    return before
