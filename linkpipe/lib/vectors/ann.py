"""FAISS nearest-neighbour index over page embeddings (inner product on normalised vectors).

Exact (``IndexFlatIP``) below ``exact_threshold`` vectors, IVF-flat above it, with recall@k
against exact search measured on a sample and returned with the index; an IVF index probes
the fewest lists that reach :data:`TARGET_RECALL` on that sample. Every search of a batch of
queries multiplies with BLAS (:data:`BLAS_THRESHOLD`); an exact index's hits then get their
similarities one by one (:func:`exact_order`), the same bits in any batch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, cast

import faiss
import numpy as np

EXACT_THRESHOLD = 50_000
TARGET_RECALL = 0.95  # recall@k an IVF index must reach on the sample (lists probed doubled)
FIRST_NPROBE = 4
TRAIN_PER_LIST = 40  # k-means training vectors a list (FAISS asks for 39 at least)
KMEANS_ITERATIONS = 10  # with 64 a list and 25 (before): 1.2x the build, the same recall
BLAS_THRESHOLD = 20
"""FAISS's cut between its query-by-query kernel and BLAS for exact search (a flat index, an
IVF index's list assignment). FAISS 1.15 counts it in query values (queries x dimensions,
default 128,000: under 334 queries of 384 dimensions), earlier versions in queries (default 20).
The candidate step searches ~250 sources at a time, which the 1.15 default sends to the slow
kernel: 0.56 against 0.08 CPU ms a query at 10k pages, 3.2 against 0.35 at 50k (one thread,
docs/benchmarks.md). 20 gives every batch BLAS with FAISS 1.15 and keeps earlier versions'
default. Set once for the process (FAISS reads it at each search)."""
faiss.cvar.distance_compute_blas_threshold = BLAS_THRESHOLD


@dataclass
class AnnIndex:
    """A built index, the URL of each row, and how it was built."""

    index: faiss.Index
    urls: list[str]
    kind: str
    recall_at_k: float
    recall_k: int
    build_seconds: float

    def search(self, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(similarities, row ids) of the ``k`` nearest rows for each query vector, best first
        (equal similarities by row id); an exact index's similarities as :func:`exact_order`
        makes them, the same bits in any batch."""
        k = min(k, len(self.urls))
        queries = np.ascontiguousarray(vectors, dtype=np.float32)
        sims, ids = self.index.search(queries, k)
        if self.kind != "flat_ip" or not len(ids):
            return sims, ids
        flat = cast(Any, self.index)  # an IndexFlatIP: its vectors, without a copy
        stored = faiss.rev_swig_ptr(flat.get_xb(), flat.ntotal * flat.d).reshape(-1, flat.d)
        return exact_order(queries, stored, ids)


def exact_order(
    queries: np.ndarray, stored: np.ndarray, ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The similarities of each query's hits (``ids``: rows of ``stored``, -1 none) computed
    query by query in float64, and the hits ordered by them (equal ones by row id).

    BLAS adds up a batch's products in an order that may hang on the batch's size and a
    query's place in it (OpenBLAS's kernels for AMD Zen do: 5-50 % of the similarities
    differ in their last bits between batches), but the source gate compares a crawl's
    similarities with the previous crawl's, searched in other batches. A product of two
    float32 is exact in float64 and any order of the sum errs by ~1e-16, far below float32's
    step: the float32 similarity is the same in any batch and on any machine. Which pages
    are among the ``k`` still comes from the index's search (two pages within ~1e-7 at the
    k-th place may trade it)."""
    found = ids >= 0
    sims = np.full(ids.shape, -np.inf, dtype=np.float32)
    for i, query in enumerate(queries.astype(np.float64)):
        hits = found[i]
        sims[i, hits] = stored[ids[i, hits]].astype(np.float64) @ query
    order = np.lexsort((np.where(found, ids, np.iinfo(ids.dtype).max), -sims), axis=-1)
    return np.take_along_axis(sims, order, axis=1), np.take_along_axis(ids, order, axis=1)


def build_index(
    vectors: np.ndarray,
    urls: list[str],
    exact_threshold: int | None = None,
    nprobe: int | None = None,
    recall_k: int = 10,
    sample: int = 1_000,
    seed: int = 0,
    lists: np.ndarray | None = None,
) -> AnnIndex:
    """Build the index for ``vectors`` (rows L2-normalised) and measure its recall: exact below
    ``exact_threshold`` vectors (default :data:`EXACT_THRESHOLD`), else IVF. An IVF
    index probes ``nprobe`` lists, or (None) the fewest lists, from :data:`FIRST_NPROBE` up by
    doubling, whose measured recall reaches :data:`TARGET_RECALL`. ``lists``: the centroids of
    an earlier index's trained lists (:func:`list_centroids`) to assign the vectors to instead
    of training new ones (ignored for an exact index, and when they do not fit: :func:`_fits`)."""
    if len(vectors) != len(urls):
        raise ValueError("one URL per vector is required")
    if len(urls) == 0:
        raise ValueError("no vectors to index")
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    start = time.perf_counter()
    if is_exact(len(x), exact_threshold):
        index: faiss.Index = faiss.IndexFlatIP(x.shape[1])
        index.add(x)
        return AnnIndex(index, list(urls), "flat_ip", 1.0, recall_k, time.perf_counter() - start)
    index = _ivf_on(x, lists) if lists is not None and _fits(lists, x) else _trained_ivf(x, seed)
    build_seconds = time.perf_counter() - start
    rows, truth = exact_neighbours(x, recall_k, sample, seed)
    probes, recall = _probes(index, x[rows], truth, nprobe)
    kind = f"ivf_flat(nlist={index.nlist},nprobe={probes})"
    return AnnIndex(index, list(urls), kind, recall, recall_k, build_seconds)


def _trained_ivf(x: np.ndarray, seed: int) -> faiss.IndexIVFFlat:
    """An IVF-flat index of ``x``: about 4 sqrt(n) lists, k-means on :data:`TRAIN_PER_LIST`
    vectors a list for :data:`KMEANS_ITERATIONS` iterations."""
    nlist = list_count(len(x))
    quantizer = faiss.IndexFlatIP(x.shape[1])
    index = faiss.IndexIVFFlat(quantizer, x.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
    index.cp.niter = KMEANS_ITERATIONS
    rng = np.random.default_rng(seed)
    index.train(x[rng.choice(len(x), size=min(len(x), nlist * TRAIN_PER_LIST), replace=False)])
    index.add(x)
    return index


def list_count(n_vectors: int) -> int:
    """The lists an IVF index of ``n_vectors`` is trained with: about 4 sqrt(n)."""
    return int(min(4 * np.sqrt(n_vectors), 16_384))


KEPT_LISTS_DRIFT = 0.25  # kept lists: at most this far from the count the site's size asks


def _fits(lists: np.ndarray, x: np.ndarray) -> bool:
    """Whether trained ``lists`` (centroids) can index ``x``: same dimension, and a count
    within :data:`KEPT_LISTS_DRIFT` of :func:`list_count` (a site that grew or shrank that much
    since they were trained gets new lists)."""
    if lists.ndim != 2 or lists.shape[1] != x.shape[1] or not len(lists):
        return False
    wanted = list_count(len(x))
    return abs(len(lists) - wanted) <= KEPT_LISTS_DRIFT * wanted


def is_exact(n_vectors: int, exact_threshold: int | None = None) -> bool:
    """Whether an index of ``n_vectors`` is exact (below ``exact_threshold``, default
    :data:`EXACT_THRESHOLD`) rather than IVF."""
    return n_vectors < (EXACT_THRESHOLD if exact_threshold is None else exact_threshold)


def _ivf_on(x: np.ndarray, centroids: np.ndarray) -> faiss.IndexIVFFlat:
    """An IVF-flat index of ``x`` on lists already trained (their ``centroids``): a refresh
    whose vectors barely changed keeps the lists, so an unchanged page stays in its list and
    finds what it found (new k-means would move every list a little), without the training."""
    quantizer = faiss.IndexFlatIP(x.shape[1])
    quantizer.add(np.ascontiguousarray(centroids, dtype=np.float32))
    index = faiss.IndexIVFFlat(quantizer, x.shape[1], len(centroids), faiss.METRIC_INNER_PRODUCT)
    index.add(x)  # trained: its quantizer holds its lists' centroids
    return index


def list_centroids(ann: AnnIndex) -> np.ndarray | None:
    """The centroids of an IVF index's lists (None for an exact index)."""
    if not ann.kind.startswith("ivf"):
        return None
    ivf = faiss.extract_index_ivf(ann.index)
    centroids: np.ndarray = ivf.quantizer.reconstruct_n(0, ivf.nlist)
    return centroids


def _probes(
    index: faiss.IndexIVFFlat, queries: np.ndarray, truth: np.ndarray, nprobe: int | None
) -> tuple[int, float]:
    """(lists probed, recall of the queries' exact neighbours ``truth``): ``nprobe``, or the
    fewest doubling from :data:`FIRST_NPROBE` that reach :data:`TARGET_RECALL`."""
    probes = nprobe or FIRST_NPROBE
    while True:
        index.nprobe = probes
        _, got = index.search(queries, truth.shape[1])
        hits = sum(len(set(t) & set(g)) for t, g in zip(truth, got, strict=True))
        recall = hits / float(truth.size)
        if nprobe is not None or recall >= TARGET_RECALL or probes >= index.nlist:
            return probes, recall
        probes = min(index.nlist, probes * 2)


def exact_neighbours(
    x: np.ndarray, k: int, sample: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """(rows of a random sample, each one's exact top-``k`` rows by inner product)."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(len(x), size=min(sample, len(x)), replace=False)
    exact = faiss.IndexFlatIP(x.shape[1])
    exact.add(x)
    _, truth = exact.search(x[rows], min(k, len(x)))
    return rows, truth


def serialize(ann: AnnIndex) -> bytes:
    """Bytes of the FAISS index (for a BLOB column)."""
    return faiss.serialize_index(ann.index).tobytes()


def deserialize(
    blob: bytes, urls: list[str], kind: str, recall: float, recall_k: int, build_seconds: float
) -> AnnIndex:
    """Rebuild an :class:`AnnIndex` from stored bytes and metadata."""
    index = faiss.deserialize_index(np.frombuffer(blob, dtype=np.uint8))
    return AnnIndex(_probing(index, kind), list(urls), kind, recall, recall_k, build_seconds)


def open_mapped(
    path: str, urls: list[str], kind: str, recall: float, recall_k: int, build_seconds: float
) -> AnnIndex:
    """:func:`deserialize` from a file holding the stored bytes, its vectors and lists
    memory-mapped by FAISS (read-only: the processes that map one file share its pages)."""
    index = faiss.read_index(path, faiss.IO_FLAG_MMAP_IFC)
    return AnnIndex(_probing(index, kind), list(urls), kind, recall, recall_k, build_seconds)


def _probing(index: faiss.Index, kind: str) -> faiss.Index:
    """The index with the lists probed that ``kind`` records (an IVF index)."""
    if kind.startswith("ivf"):
        faiss.extract_index_ivf(index).nprobe = int(kind.split("nprobe=")[1].rstrip(")"))
    return index
