"""Which pages the lexical index's champion lists held before a refresh's changes and hold now.

Each term of the index keeps a *champion list*: the ``posting_cap`` pages where it weighs most
(:mod:`~linkpipe.lib.text.lexical_index`), every page holding it when no more than that many do.
A query's partial sums count a page's weight for a term only when the term's list holds the
page. Between two crawls with the same TF-IDF statistics an unchanged page keeps its row, so
its partial sums change only where a list's membership changed: a changed page entering a
full list pushes out the page of lowest weight, one leaving it lets the next page in. Those
pushed out or let in are the *boundary pages*: unchanged rows whose held weights differ.

A list's membership is told by its lowest weight (the ``posting_cap``-th highest of the
term's column; 0 when every holder is kept): a page is held when its weight is at least that.
Where two weights tie at it the index may have kept either (it picks among equals in no
fixed order): the term is *unclear*, and a source looking it up is searched again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from linkpipe.lib.text.lexical_index import TIE, LexicalIndex

MARGIN = TIE  # weights, partial sums and cosines this close tie (added up in another order)


@dataclass(frozen=True)
class ChangedRows:
    """The TF-IDF rows of the pages whose row changed, came or went since the previous crawl:
    the previous crawl's (``old``) and this crawl's (``new``), in the columns of this crawl's
    matrix, one row a page (an empty row where the page has none), and each page's row in
    this crawl's matrix (``at``: -1 where it has none)."""

    old: sparse.csr_matrix
    new: sparse.csr_matrix
    at: np.ndarray


@dataclass(frozen=True)
class ChampionRows:
    """Rows as the champion lists held them before (``old``) and hold them now (``new``): the
    changed pages' (the first ``changed`` rows), then the boundary pages' (see the module);
    ``full_old`` / ``full_new``: the same pages' whole rows (for exact cosines); ``pages``:
    each one's row in this crawl's matrix (-1: none); ``lowest``: each term's lowest weight
    its list holds now (0: every holder, NaN: unclear); ``unclear``: the terms whose lists'
    membership cannot be told, before or after."""

    old: sparse.csr_matrix
    new: sparse.csr_matrix
    full_old: sparse.csr_matrix
    full_new: sparse.csr_matrix
    changed: int
    pages: np.ndarray
    lowest: np.ndarray
    unclear: np.ndarray

    def held_now(self, rows: sparse.csr_matrix) -> sparse.csr_matrix:
        """Unchanged pages' ``rows`` as this crawl's champion lists hold them."""
        return held(rows, self.lowest)


def champion_rows(index: LexicalIndex, changed: ChangedRows) -> ChampionRows:
    """The :class:`ChampionRows` of a refresh: ``index`` is this crawl's."""
    matrix, cap = index.matrix, index.settings.posting_cap
    width = matrix.shape[1]
    now = np.bincount(matrix.indices, minlength=width)
    before = now - np.bincount(changed.new.indices, minlength=width)
    before += np.bincount(changed.old.indices, minlength=width)
    capped = np.flatnonzero((now > cap) | (before > cap))
    columns = matrix[:, capped].tocsc()
    mine = np.isin(columns.indices, changed.at[changed.at >= 0])  # a changed page's entry
    old_columns = changed.old[:, capped].tocsc()
    lowest_now, lowest_before = np.zeros(width), np.zeros(width)
    flips: list[np.ndarray] = []
    for j, term in enumerate(capped.tolist()):
        lo, hi = columns.indptr[j], columns.indptr[j + 1]
        weights, pages = columns.data[lo:hi], columns.indices[lo:hi]
        kept = weights[~mine[lo:hi]]
        was = old_columns.data[old_columns.indptr[j] : old_columns.indptr[j + 1]]
        was = np.concatenate([kept, was])
        lowest_now[term], lowest_before[term] = _lowest(weights, cap), _lowest(was, cap)
        if lowest_now[term] != lowest_before[term]:
            flipped = (weights >= lowest_now[term]) != (weights >= lowest_before[term])
            flips.append(pages[flipped & ~mine[lo:hi]])
    unclear = np.flatnonzero(np.isnan(lowest_now) | np.isnan(lowest_before))
    flipped_pages = np.unique(np.concatenate(flips)) if flips else np.zeros(0, np.int64)
    boundary = matrix[flipped_pages]
    return ChampionRows(
        sparse.vstack([held(changed.old, lowest_before), held(boundary, lowest_before)]).tocsr(),
        sparse.vstack([held(changed.new, lowest_now), held(boundary, lowest_now)]).tocsr(),
        sparse.vstack([changed.old, boundary]).tocsr(),
        sparse.vstack([changed.new, boundary]).tocsr(),
        changed.old.shape[0],
        np.concatenate([changed.at, flipped_pages]).astype(np.int64),
        lowest_now,
        unclear,
    )


def _lowest(weights: np.ndarray, cap: int) -> float:
    """The lowest weight a list of ``weights`` keeps (0: all of them; NaN: another weight ties
    with it, see the module)."""
    if len(weights) <= cap:
        return 0.0
    last = float(np.partition(weights, len(weights) - cap)[len(weights) - cap])
    return np.nan if np.count_nonzero(np.abs(weights - last) <= MARGIN) > 1 else last


def held(rows: sparse.csr_matrix, lowest: np.ndarray) -> sparse.csr_matrix:
    """``rows`` without the weights their term's list leaves out (below its ``lowest``; a NaN
    lowest leaves every weight out: a source looking the term up is searched anyway)."""
    kept = sparse.csr_matrix(rows, copy=True)
    kept.data = np.where(kept.data >= lowest[kept.indices], kept.data, 0.0)
    kept.eliminate_zeros()
    return kept
