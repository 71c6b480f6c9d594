"""Term counts of pages (what TF-IDF is fitted on), counted in batches and joined.

:func:`count_batch` counts the stems of some pages over a vocabulary of their own (stems in
the order first met); :class:`CountsJoiner` joins such batches, wherever they were counted,
into one pages x terms matrix over the sorted vocabulary of every batch (the matrix
scikit-learn's ``CountVectorizer`` gives for the same documents, rows in the order the batches
are added) or over a fixed vocabulary (stems outside it not counted).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse


@dataclass(frozen=True)
class BatchCounts:
    """Term counts of a batch of pages over its own vocabulary (CSR arrays, one row a page)."""

    urls: list[str]
    vocabulary: list[str]  # local term id -> stem, in the order first met
    indptr: NDArray[np.int64]
    indices: NDArray[np.int32]  # local term ids
    counts: NDArray[np.int32]


def count_batch(documents: Iterable[tuple[str, Sequence[str]]]) -> BatchCounts:
    """The counts of (url, stems) documents."""
    vocabulary: dict[str, int] = {}
    urls: list[str] = []
    lengths: list[int] = []
    indices: list[int] = []
    counts: list[int] = []
    for url, stems in documents:
        urls.append(url)
        page: dict[int, int] = {}
        for s in stems:
            term = vocabulary.get(s)
            if term is None:
                term = vocabulary[s] = len(vocabulary)
            page[term] = page.get(term, 0) + 1
        lengths.append(len(page))
        indices.extend(page)
        counts.extend(page.values())
    indptr = np.zeros(len(urls) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return BatchCounts(
        urls,
        list(vocabulary),
        indptr,
        np.asarray(indices, dtype=np.int32),
        np.asarray(counts, dtype=np.int32),
    )


class CountsJoiner:
    """Batches of counts joined into one matrix, rows in the order the batches came."""

    def __init__(self, fixed: Sequence[str] | None = None) -> None:
        """``fixed``: the vocabulary to count over (term id = position); None: every stem."""
        self.fixed = fixed is not None
        self.vocabulary: dict[str, int] = {s: i for i, s in enumerate(fixed or ())}
        self.urls: list[str] = []
        self._lengths: list[NDArray[np.int64]] = []
        self._indices: list[NDArray[np.int32]] = []
        self._counts: list[NDArray[np.int32]] = []

    def add(self, batch: BatchCounts) -> None:
        """Append a batch's rows."""
        vocabulary = self.vocabulary
        if self.fixed:
            ids = [vocabulary.get(s, -1) for s in batch.vocabulary]
        else:
            ids = [vocabulary.setdefault(s, len(vocabulary)) for s in batch.vocabulary]
        mapping = np.asarray(ids, dtype=np.int32)
        indices = mapping[batch.indices]
        keep = indices >= 0
        rows = np.repeat(np.arange(len(batch.urls)), np.diff(batch.indptr))
        self.urls.extend(batch.urls)
        self._lengths.append(np.bincount(rows[keep], minlength=len(batch.urls)).astype(np.int64))
        self._indices.append(indices[keep])
        self._counts.append(batch.counts[keep])

    def matrix(self) -> tuple[NDArray[np.object_], sparse.csr_matrix]:
        """(vocabulary in term id order, pages x terms counts with sorted indices); the
        vocabulary of a joiner without a fixed one is sorted, as ``CountVectorizer``'s. The
        batches are let go as they are joined: ask once."""
        stems = np.array(list(self.vocabulary), dtype=object)
        indices = _joined(self._indices, np.int32)
        if not self.fixed and len(stems):
            order = np.argsort(stems, kind="stable")
            rank = np.empty(len(stems), dtype=np.int32)
            rank[order] = np.arange(len(stems), dtype=np.int32)
            stems, indices = stems[order], rank[indices]
        indptr = np.zeros(len(self.urls) + 1, dtype=np.int64)
        np.cumsum(_joined(self._lengths, np.int64), out=indptr[1:])
        counts = _joined(self._counts, np.int32)
        shape = (len(self.urls), len(stems))
        matrix = sparse.csr_matrix((counts, indices, indptr), shape=shape)
        matrix.sort_indices()
        return stems, matrix


def _joined(parts: list[NDArray[Any]], dtype: type[np.generic]) -> NDArray[Any]:
    """The arrays of ``parts`` end to end; ``parts`` is emptied."""
    joined = np.concatenate([np.zeros(0, dtype), *parts])
    parts.clear()
    return joined
