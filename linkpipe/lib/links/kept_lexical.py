"""TF-IDF neighbours a refresh takes from the previous crawl instead of querying the lexical
index (:mod:`~linkpipe.lib.text.lexical_index`).

A query of the index takes the source's heaviest terms (its *lookups*), sums over their
champion lists the partial dot product of every page they hold, keeps the ``keep`` best
partial sums (all of them when fewer pages have one) and orders those pages by exact cosine.
The gate stores, with the pages found, the partial sum at that cut (None when nothing was cut)
and the cosine of the last page found when the list is full (its *floor*; 0 when it is
shorter than asked). With the same TF-IDF statistics and index settings (the search salt),
an unchanged source asks the same query, and a page whose row did not change keeps its
partial sum and cosine, so the list can move only through the *changed* pages (rows
changed, came or went) and through champion lists they enter or leave. The list is kept when:

* no lookup term of the source is *capped* (more pages hold it than a champion list keeps,
  before or after) and held by a changed page (old or new row): a changed page entering or
  leaving a capped list can push another page in or out of it;
* every changed page, with its old row and with its new one, has a partial sum (its dot
  product with the lookups: every term it shares with them is uncapped, so it is in their
  lists) below the stored cut (no cut: any), so that no page enters or leaves the pages
  kept, and a cosine below the floor (or none, when the list is short), so that it enters
  no list and leaves none.

Ties at the cut and among cosines are resolved in page order, which unchanged pages keep.
Comparisons allow :data:`MARGIN` (the sums here are not added up in the index's order).
Tested against searching again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import sparse

from linkpipe.lib.text.lexical_index import LexicalIndex, heaviest

MARGIN = 1e-9


@dataclass(frozen=True)
class KeptList:
    """A source's TF-IDF neighbours as the index found them (URLs, best first), the partial
    sum at the index's cut (None: nothing cut) and the floor (see the module)."""

    urls: tuple[str, ...]
    cut: float | None
    floor: float


@dataclass(frozen=True)
class ChangedRows:
    """The TF-IDF rows of the pages whose row changed, came or went since the previous crawl:
    the previous crawl's (``old``) and this crawl's (``new``), one row a page that has one,
    in the columns of this crawl's matrix."""

    old: sparse.csr_matrix
    new: sparse.csr_matrix

    def capped_terms(self, index: LexicalIndex) -> np.ndarray:
        """The terms held by a changed page (old or new row) that more pages hold than a
        champion list keeps, in this crawl's matrix or in the previous one's."""
        width = index.matrix.shape[1]
        now = np.bincount(index.matrix.indices, minlength=width)
        held_now = np.bincount(self.new.indices, minlength=width)
        held_before = np.bincount(self.old.indices, minlength=width)
        before = now - held_now + held_before
        cap = index.settings.posting_cap
        held = (held_now > 0) | (held_before > 0)
        return np.flatnonzero(held & ((now > cap) | (before > cap)))


def kept_lists(
    stored: Mapping[str, KeptList],
    index: LexicalIndex,
    row_of: Mapping[str, int],
    changed: ChangedRows,
) -> dict[str, KeptList]:
    """The stored lists (of untouched sources, searched with this crawl's salt) that no
    change can move (see the module), by source; ``row_of``: each page's row in the index's
    matrix."""
    sources = [s for s in stored if s in row_of]
    if not sources:
        return {}
    rows = index.matrix[[row_of[s] for s in sources]]
    lookups = heaviest(rows, index.settings.query_terms)
    capped = changed.capped_terms(index)
    blocked = np.asarray(lookups[:, capped].getnnz(axis=1) > 0) if len(capped) else None
    both = sparse.vstack([changed.old, changed.new]).tocsr().T.tocsc()
    partial = _row_max(lookups @ both, len(sources))
    cosine = _row_max(rows @ both, len(sources))
    out: dict[str, KeptList] = {}
    for i, source in enumerate(sources):
        found = stored[source]
        if blocked is not None and blocked[i]:
            continue
        if found.cut is not None and partial[i] >= found.cut - MARGIN:
            continue
        if cosine[i] > 0 and cosine[i] >= found.floor - MARGIN:
            continue
        out[source] = found
    return out


def _row_max(product: sparse.spmatrix, n: int) -> np.ndarray:
    """Each row's highest value of a sparse product (0 for a row without one: the pages
    compared share no term, or there are none)."""
    if product.shape[1] == 0:
        return np.zeros(n)
    return np.asarray(sparse.csr_matrix(product).max(axis=1).todense()).ravel()


def stored_lists(frame: pl.DataFrame) -> dict[str, KeptList]:
    """The lists of a ``source_url, lexical_hits, lexical_cut, lexical_floor`` frame."""
    columns = ("source_url", "lexical_hits", "lexical_cut", "lexical_floor")
    return {
        source: KeptList(tuple(urls), cut, floor)
        for source, urls, cut, floor in frame.select(columns).iter_rows()
        if urls is not None and floor is not None
    }


def rows_matrix(frame: pl.DataFrame, width: int) -> sparse.csr_matrix:
    """The rows of a ``term_ids, weights`` frame as a matrix of ``width`` columns."""
    lengths = frame["term_ids"].list.len().to_numpy().astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    indices = frame["term_ids"].explode().drop_nulls().to_numpy().astype(np.int32)
    data = frame["weights"].explode().drop_nulls().to_numpy().astype(np.float64)
    return sparse.csr_matrix((data, indices, indptr), shape=(frame.height, width))


def new_rows(
    index: LexicalIndex, row_of: Mapping[str, int], urls: Sequence[str]
) -> sparse.csr_matrix:
    """This crawl's rows of the given pages (those it has)."""
    return index.matrix[[row_of[u] for u in urls if u in row_of]]
