"""Lexical neighbours at a cost per page that does not grow with the site.

An inverted index over the site's TF-IDF rows in which each term keeps only its "champion
list": the ``posting_cap`` pages where it weighs most. A query accumulates, over its
``query_terms`` heaviest terms, the partial dot products of their postings (at most
``query_terms`` x ``posting_cap`` pages, however large the site), keeps the ``rerank`` best
pages and orders them by their exact cosine. Its recall against the exact top-k (every page
compared with every other) is measured on a sample by :func:`tune_index`, which widens the
index until the recall reaches its target, and is recorded with the site models. The
postings are laid out by :mod:`~linkpipe.lib.text.postings` so that the partial sums of a large
site stay in the CPU's cache; which pages a query finds does not depend on how the layout is cut
into blocks (equal partial sums at the rerank's cut are taken in the index's page order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from linkpipe.lib.text.postings import Postings, build_postings

Neighbours = list[NDArray[np.int64]]
"""For each query row, the rows of its neighbours, best first."""


class Bounds(NamedTuple):
    """What a query's neighbours hang on: the partial sum at the cut of the pages ordered by
    exact cosine (None when no page was cut), the cosine of the last neighbour when the query
    found all it asked for (else 0), up to :data:`NEXT_PAGES` pages of highest partial sum
    below the cut with those sums (:func:`next_pages`), and the
    *runner-up*: the page ordered of highest cosine after the neighbours, with that cosine
    (row -1: the list is not full, or no page is left, or its cosine is within :data:`TIE` of
    the floor or of the next cosine): see :mod:`~linkpipe.lib.links.kept_lexical`."""

    cut: float | None
    floor: float
    next_rows: tuple[int, ...] = ()
    next_partials: tuple[float, ...] = ()
    runner_row: int = -1
    runner_cosine: float = 0.0


TIE = 1e-9  # partial sums this close may come in either order (see Bounds.next_rows)
NEXT_PAGES = 4  # pages below the cut a query keeps (up to four changed pages leave a list)


@dataclass(frozen=True, slots=True)
class IndexSettings:
    """How much of the site one query may touch."""

    # 512 and 250: the recall of 1,024 and 500 on real sites (GIMP 0.9976 against 0.9978,
    # Django 0.9992 against 0.9994) and at 1M generated pages (0.9976 against 1.000), at 0.55
    # (1M) to 0.85 (GIMP) of the cost of a query (docs/benchmarks.md, "sixteenth slice"). Fewer
    # query terms cost recall on real prose (GIMP, 16 terms: 0.982).
    posting_cap: int = 512  # pages kept per term: those where it weighs most
    rerank: int = 250  # best partial matches per query ordered by exact cosine
    query_terms: int = 32  # heaviest terms of the query that look pages up

    def wider(self) -> IndexSettings:
        """Four times the pages per term, twice the pages scored exactly and twice the query
        terms up to :data:`WIDEST_QUERY`. A site whose true neighbours share many mid-weight
        words of a large section (the benchmark's generated site: 0.60 at the defaults at 100k
        pages) needs all three: a longer champion list alone, or a longer rerank alone, leaves
        the neighbours below the cut of partial sums over too few terms (docs/benchmarks.md,
        "the lexical index's widening")."""
        terms = max(self.query_terms, min(WIDEST_QUERY, 2 * self.query_terms))
        return replace(
            self, posting_cap=4 * self.posting_cap, rerank=2 * self.rerank, query_terms=terms
        )


WIDEST_QUERY = 64  # query terms a widening goes up to (at 100k, 128 cost more than a longer rerank)
MAX_WIDENINGS = 3  # times an index is widened at most while its recall is below the target


class LexicalIndex:
    """Champion-list inverted index over the rows of a TF-IDF matrix."""

    def __init__(
        self,
        matrix: sparse.csr_matrix,
        settings: IndexSettings | None = None,
        postings: Postings | None = None,
    ) -> None:
        """``postings``: the index's postings built earlier from the same matrix and settings
        (:attr:`postings`), else they are built when first needed (models loaded only to be
        updated never query their index)."""
        self.matrix = matrix
        self.settings = settings or IndexSettings()
        self._postings = postings

    @property
    def postings(self) -> Postings:
        """Each term's champion pages, laid out by :func:`build_postings`."""
        if self._postings is None:
            champions = heaviest(self.matrix.T.tocsr(), self.settings.posting_cap)
            self._postings = build_postings(champions, self.matrix)
        return self._postings

    def neighbours(
        self,
        rows: Sequence[int],
        k: int | Sequence[int],
        chunk: int = 128,
        bounds: list[Bounds] | None = None,
    ) -> Neighbours:
        """For each of ``rows``, up to ``k`` rows (one number, or one a row) with a positive
        cosine, best first (the row itself included: it is its own best match); ``chunk``
        queries at a time. A row's neighbours do not depend on the rows asked beside it. With
        ``bounds``, each query's :data:`Bounds` are added to it."""
        ks = [int(k)] * len(rows) if isinstance(k, (int, np.integer)) else list(k)
        if len(ks) != len(rows):
            raise ValueError(f"{len(ks)} neighbour counts for {len(rows)} rows")
        out: Neighbours = []
        dense = np.zeros(self.matrix.shape[1])  # one query at a time, reset after use
        for first in range(0, len(rows), chunk):
            queries = self.matrix[list(rows[first : first + chunk])]
            lookups = heaviest(queries, self.settings.query_terms)
            partial = self.postings.partial_sums(lookups)
            for i in range(queries.shape[0]):
                k_i = ks[first + i]
                found, bound = self._rerank(partial, queries, i, dense, k_i, bounds is not None)
                out.append(found)
                if bounds is not None:
                    bounds.append(bound)
        return out

    def _rerank(
        self,
        partial: sparse.csr_matrix,
        queries: sparse.csr_matrix,
        i: int,
        dense: NDArray[np.float64],
        k: int,
        next_page: bool = True,
    ) -> tuple[NDArray[np.int64], Bounds]:
        """The ``k`` best of query ``i``'s ``rerank`` best partial matches, by exact cosine,
        with their :data:`Bounds` (the page below the cut looked for only with ``next_page``)."""
        lo, hi = partial.indptr[i], partial.indptr[i + 1]
        keep = max(k, self.settings.rerank)
        places, scores = partial.indices[lo:hi], partial.data[lo:hi]
        reached, cut = best_and_cut(places, scores, keep)
        cols = np.sort(self.postings.rows[reached])
        terms = queries.indices[queries.indptr[i] : queries.indptr[i + 1]]
        dense[terms] = queries.data[queries.indptr[i] : queries.indptr[i + 1]]
        exact = self.matrix[cols] @ dense
        dense[terms] = 0.0
        ranked = np.argsort(-exact, kind="stable")
        order = ranked[:k][exact[ranked[:k]] > 0]
        found: NDArray[np.int64] = cols[order].astype(np.int64)
        floor = float(exact[order[-1]]) if len(order) == k else 0.0
        if not next_page:
            return found, Bounds(cut, floor)
        runner, runner_cosine = runner_up(exact[ranked], k) if floor > 0 else (-1, 0.0)
        runner = int(cols[ranked[runner]]) if runner >= 0 else -1
        if cut is None:
            return found, Bounds(cut, floor, runner_row=runner, runner_cosine=runner_cosine)
        below, sums = next_pages(places, scores, cut)
        following = tuple(self.postings.rows[below].tolist())
        return found, Bounds(cut, floor, following, tuple(sums), runner, runner_cosine)


def runner_up(cosines: NDArray[np.float64], k: int) -> tuple[int, float]:
    """The place of the runner-up among ``cosines`` (the pages ordered, best first, the first
    ``k`` the neighbours) and its cosine; (-1, 0) when there is none, when it is not positive
    or when another cosine is within :data:`TIE` of it."""
    if len(cosines) <= k or cosines[k] <= 0:
        return -1, 0.0
    cosine = float(cosines[k])
    if cosines[k - 1] - cosine <= TIE or (len(cosines) > k + 1 and cosine - cosines[k + 1] <= TIE):
        return -1, 0.0
    return k, cosine


def next_pages(
    places: NDArray[np.int32], scores: NDArray[np.float64], cut: float, count: int = NEXT_PAGES
) -> tuple[list[int], list[float]]:
    """Up to ``count`` places of highest score below ``cut``, best first, and their scores:
    they stop before a score within :data:`TIE` of the one after it, and there are none when
    a score other than the cut's own is within it of the cut (which of them is below the cut
    may hang on the order the index meets them)."""
    below = np.flatnonzero(scores < cut - TIE)
    if np.count_nonzero(np.abs(scores - cut) <= TIE) > 1 or not len(below):
        return [], []
    if len(below) > count + 1:
        below = below[np.argpartition(-scores[below], count)[: count + 1]]
    below = below[np.argsort(-scores[below], kind="stable")]
    values = scores[below].tolist()
    taken = 0
    while taken < min(count, len(values)):
        if taken + 1 < len(values) and values[taken] - values[taken + 1] <= TIE:
            break
        taken += 1
    return places[below[:taken]].tolist(), values[:taken]


def best_of(places: NDArray[np.int32], scores: NDArray[np.float64], keep: int) -> NDArray[np.int32]:
    """The ``keep`` places of highest score (see :func:`best_and_cut`)."""
    return best_and_cut(places, scores, keep)[0]


def best_and_cut(
    places: NDArray[np.int32], scores: NDArray[np.float64], keep: int
) -> tuple[NDArray[np.int32], float | None]:
    """The ``keep`` places of highest score and the ``keep``-th highest score (None when there
    are no more places than ``keep``: all are kept); of places tied at the cut, the first in
    order (the same places in whatever order they come). A long row is first narrowed to the
    scores at or above the ``keep``-th highest of every fourth score, which is never above the
    ``keep``-th highest of all: the same places, at less than half the cost."""
    if len(places) <= keep:
        return places, None
    if len(places) > 8 * keep:
        sample = scores[::4]
        near = scores >= np.partition(sample, len(sample) - keep)[len(sample) - keep]
        places, scores = places[near], scores[near]
    cut = np.partition(scores, len(scores) - keep)[len(scores) - keep]
    above = places[scores > cut]
    tied = np.sort(places[scores == cut])[: keep - len(above)]
    return np.concatenate([above, tied]), float(cut)


def heaviest(matrix: sparse.csr_matrix, limit: int) -> sparse.csr_matrix:
    """Each row's ``limit`` highest weights (the others dropped)."""
    counts = np.diff(matrix.indptr)
    keep = np.ones(matrix.nnz, dtype=bool)
    for row in np.flatnonzero(counts > limit):
        lo, hi = matrix.indptr[row], matrix.indptr[row + 1]
        keep[lo + np.argpartition(-matrix.data[lo:hi], limit - 1)[limit:]] = False
    rows = np.repeat(np.arange(matrix.shape[0]), counts)
    return sparse.csr_matrix(
        (matrix.data[keep], (rows[keep], matrix.indices[keep])), shape=matrix.shape
    )


def exact_neighbours(
    matrix: sparse.csr_matrix, rows: Sequence[int], k: int, chunk: int = 16
) -> Neighbours:
    """For each of ``rows``, the ``k`` rows of highest cosine over the whole matrix (O(N) each:
    the reference the index is measured against), ``chunk`` rows at a time."""
    transposed = matrix.T.tocsr()  # terms x pages, once for every chunk
    out: Neighbours = []
    for first in range(0, len(rows), chunk):
        sims = (matrix[list(rows[first : first + chunk])] @ transposed).tocsr()
        for i in range(sims.shape[0]):
            lo, hi = sims.indptr[i], sims.indptr[i + 1]
            out.append(_top(sims.indices[lo:hi], sims.data[lo:hi], k))
    return out


def _top(cols: NDArray[np.int32], data: NDArray[np.float64], k: int) -> NDArray[np.int64]:
    """The columns of the ``k`` highest positive values, highest first (between equal values
    the lower column first); only the values from the k-th highest up are sorted."""
    if len(data) > k:
        keep = data >= np.partition(data, len(data) - k)[len(data) - k]
        cols, data = cols[keep], data[keep]
    order = np.lexsort((cols, -data))[:k]
    return cols[order[data[order] > 0]].astype(np.int64)


def recall_at_k(
    index: LexicalIndex, rows: Sequence[int], k: int = 10, exact: Neighbours | None = None
) -> float:
    """The share of each row's exact top ``k`` other pages that the index returns (pages tied
    with the k-th count as found), over ``rows``; ``exact``: their exact neighbours, if known."""
    exact = exact if exact is not None else exact_neighbours(index.matrix, rows, k + 1)
    found = index.neighbours(rows, k + 1)
    total, hits = 0, 0
    for row, truth, got in zip(rows, exact, found, strict=True):
        truth, got = truth[truth != row][:k], got[got != row][:k]
        if not len(truth):
            continue
        query = index.matrix[row].T
        kth = float((index.matrix[truth[-1:]] @ query).toarray()[0, 0])
        scores = (index.matrix[got] @ query).toarray().ravel() if len(got) else np.zeros(0)
        total += len(truth)
        hits += min(len(truth), int(np.sum(scores >= kth - 1e-12)))
    return hits / total if total else 1.0


def tune_index(
    index: LexicalIndex,
    rows: Sequence[int],
    k: int = 10,
    target: float = 0.95,
    max_widenings: int = MAX_WIDENINGS,
) -> tuple[LexicalIndex, float]:
    """The index and its recall@k on ``rows``: ``index`` itself, or widened
    (:meth:`IndexSettings.wider`, up to ``max_widenings`` times) while its recall is below
    ``target``.
    Exact neighbours are computed once (O(N) per sampled row)."""
    exact = exact_neighbours(index.matrix, rows, k + 1)
    recall = recall_at_k(index, rows, k, exact)
    for _ in range(max_widenings):
        if recall >= target:
            break
        index = LexicalIndex(index.matrix, index.settings.wider())
        recall = recall_at_k(index, rows, k, exact)
    return index, recall


def sample_rows(n_rows: int, size: int, seed: int = 0) -> list[int]:
    """A seeded sample of ``size`` row numbers (all of them when fewer)."""
    if n_rows <= size:
        return list(range(n_rows))
    rng = np.random.default_rng(seed)
    return sorted(int(r) for r in rng.choice(n_rows, size=size, replace=False))
