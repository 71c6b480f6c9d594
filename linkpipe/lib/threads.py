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
    torch_before = _torch_threads(None)
    faiss_before = _faiss_threads(None)
    try:
        with threadpool_limits(limits=threads):
            _torch_threads(threads)
            _faiss_threads(threads)
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        _torch_threads(torch_before or usual)
        _faiss_threads(faiss_before or usual)


def _torch_threads(threads: int | None) -> int | None:
    """PyTorch's intra-op threads now; set to ``threads`` when given (only if it is loaded)."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "get_num_threads"):
        return None
    before = int(torch.get_num_threads())
    if threads is not None:
        torch.set_num_threads(threads)
    return before


def _faiss_threads(threads: int | None) -> int | None:
    """FAISS's OpenMP threads now; set to ``threads`` when given (only if it is loaded)."""
    faiss = sys.modules.get("faiss")
    if faiss is None or not hasattr(faiss, "omp_get_max_threads"):
        return None
    before = int(faiss.omp_get_max_threads())
    if threads is not None:
        faiss.omp_set_num_threads(threads)
    return before
