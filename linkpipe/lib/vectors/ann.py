"""FAISS nearest-neighbour index over page embeddings (inner product on normalised vectors).

Exact (``IndexFlatIP``) below ``exact_threshold`` vectors, IVF-flat above it, with recall@k
against exact search measured on a sample and returned with the index.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import faiss
import numpy as np

EXACT_THRESHOLD = 50_000


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
        """(similarities, row ids) of the ``k`` nearest rows for each query vector."""
        k = min(k, len(self.urls))
        return self.index.search(np.ascontiguousarray(vectors, dtype=np.float32), k)


def build_index(
    vectors: np.ndarray,
    urls: list[str],
    exact_threshold: int = EXACT_THRESHOLD,
    nprobe: int = 8,
    recall_k: int = 10,
    sample: int = 1_000,
    seed: int = 0,
) -> AnnIndex:
    """Build the index for ``vectors`` (rows L2-normalised) and measure its recall."""
    if len(vectors) != len(urls):
        raise ValueError("one URL per vector is required")
    if len(urls) == 0:
        raise ValueError("no vectors to index")
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    dim = x.shape[1]
    start = time.perf_counter()
    if len(x) < exact_threshold:
        index: faiss.Index = faiss.IndexFlatIP(dim)
        index.add(x)
        kind = "flat_ip"
    else:
        nlist = int(min(4 * np.sqrt(len(x)), 16_384))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        train = x[rng.choice(len(x), size=min(len(x), nlist * 64), replace=False)]
        index.train(train)
        index.add(x)
        index.nprobe = nprobe
        kind = f"ivf_flat(nlist={nlist},nprobe={nprobe})"
    build_seconds = time.perf_counter() - start
    recall = measure_recall(index, x, recall_k, sample, seed) if kind != "flat_ip" else 1.0
    return AnnIndex(index, list(urls), kind, recall, recall_k, build_seconds)


def measure_recall(index: faiss.Index, x: np.ndarray, k: int, sample: int, seed: int) -> float:
    """Share of the exact top-``k`` neighbours that ``index`` returns, on a random sample."""
    rng = np.random.default_rng(seed)
    rows = rng.choice(len(x), size=min(sample, len(x)), replace=False)
    exact = faiss.IndexFlatIP(x.shape[1])
    exact.add(x)
    k = min(k, len(x))
    _, truth = exact.search(x[rows], k)
    _, got = index.search(x[rows], k)
    hits = sum(len(set(t) & set(g)) for t, g in zip(truth, got, strict=True))
    return hits / float(truth.size)


def serialize(ann: AnnIndex) -> bytes:
    """Bytes of the FAISS index (for a BLOB column)."""
    return faiss.serialize_index(ann.index).tobytes()


def deserialize(
    blob: bytes, urls: list[str], kind: str, recall: float, recall_k: int, build_seconds: float
) -> AnnIndex:
    """Rebuild an :class:`AnnIndex` from stored bytes and metadata."""
    index = faiss.deserialize_index(np.frombuffer(blob, dtype=np.uint8))
    if kind.startswith("ivf"):
        faiss.extract_index_ivf(index).nprobe = int(kind.split("nprobe=")[1].rstrip(")"))
    return AnnIndex(index, list(urls), kind, recall, recall_k, build_seconds)
