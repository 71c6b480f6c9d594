"""Thread limits of the numeric libraries inside a block, and their restoration after it."""

import os

import faiss
import torch
from threadpoolctl import threadpool_info

from linkpipe.lib.threads import cores, limited_threads, threads_per_worker


def _blas_threads() -> set[int]:
    return {p["num_threads"] for p in threadpool_info() if p["internal_api"] == "openblas"}


def test_every_library_runs_one_thread_inside_the_block_and_gets_its_count_back():
    torch_before, faiss_before = torch.get_num_threads(), faiss.omp_get_max_threads()
    blas_before, env_before = _blas_threads(), os.environ.get("OMP_NUM_THREADS")
    with limited_threads(1):
        assert torch.get_num_threads() == 1
        assert faiss.omp_get_max_threads() == 1
        assert _blas_threads() == {1}
        assert os.environ["OMP_NUM_THREADS"] == "1"
        assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    assert torch.get_num_threads() == torch_before
    assert faiss.omp_get_max_threads() == faiss_before
    assert _blas_threads() == blas_before
    assert os.environ.get("OMP_NUM_THREADS") == env_before


def test_workers_divide_the_cores_and_never_get_less_than_one_thread():
    assert threads_per_worker(1) == cores()
    assert threads_per_worker(cores()) == 1
    assert threads_per_worker(cores() * 4) == 1
    assert threads_per_worker(0) == cores()
