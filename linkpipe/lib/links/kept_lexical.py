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

* no lookup term of the source has a champion list a changed page may have entered or left
  (more pages hold the term than a list keeps, before or after, and a changed page holding
  it is not above the list's lowest weight with both its rows, nor below it with both): a
  page entering or leaving a full list pushes another page out of it or lets one in;
* every changed page has a partial sum (its dot product with the lookups over the terms
  whose champion lists hold it) below the stored cut with both its
  old row and its new one, or above it with both (no cut: any), so that the pages ordered
  by exact cosine are the same pages, and a cosine below the floor with both rows (or none,
  when the list is short), so that it enters no list and leaves none.

Ties at the cut and among cosines are resolved in page order, which unchanged pages keep.
Comparisons allow :data:`MARGIN` (the sums here are not added up in the index's order).
Tested against searching again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import polars as pl
from scipy import sparse

from linkpipe.lib.text.lexical_index import LexicalIndex, heaviest
from linkpipe.lib.text.tfidf import rows_matrix

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
    the previous crawl's (``old``) and this crawl's (``new``), in the columns of this crawl's
    matrix, one row a page in both (an empty row where the page has none)."""

    old: sparse.csr_matrix
    new: sparse.csr_matrix

    def champions(self, index: LexicalIndex) -> ChampionRows:
        """The changed rows as the champion lists hold them, and the terms whose lists a
        changed page may have entered or left (see :class:`ChampionRows`)."""
        width, cap = index.matrix.shape[1], index.settings.posting_cap
        now = np.bincount(index.matrix.indices, minlength=width)
        held_now = np.bincount(self.new.indices, minlength=width)
        held_before = np.bincount(self.old.indices, minlength=width)
        before = now - held_now + held_before
        capped = np.flatnonzero(
            ((held_now > 0) | (held_before > 0)) & ((now > cap) | (before > cap))
        )
        steady = capped[(now[capped] > cap) & (before[capped] > cap)]
        last = _last_kept(index.matrix[:, steady].tocsc(), cap)  # each list's lowest weight
        sides = [_sides(rows[:, steady].toarray(), last) for rows in (self.old, self.new)]
        stays = ((sides[0] == sides[1]) & (sides[0] != 0)).all(axis=0)
        moved = np.union1d(capped[~np.isin(capped, steady)], steady[~stays])
        lowest = np.zeros(width)
        lowest[steady[stays]] = last[stays]
        return ChampionRows(_held(self.old, lowest), _held(self.new, lowest), moved)


@dataclass(frozen=True)
class ChampionRows:
    """The changed pages' rows (``old``, ``new``) but for the terms whose champion list
    leaves them out, and the terms whose list a changed page may have entered or left
    (``moved``: more pages hold them than a list keeps, before or after, and a changed page
    holding one is not above the list's lowest weight both before and after, nor below it
    both times)."""

    old: sparse.csr_matrix
    new: sparse.csr_matrix
    moved: np.ndarray


def _last_kept(columns: sparse.csc_matrix, cap: int) -> np.ndarray:
    """The ``cap``-th highest weight of each column (the lowest its champion list keeps);
    NaN where another weight equals it (which of them the list keeps may hang on the order
    the pages come in: no changed page stays on one side of it)."""
    out = np.zeros(columns.shape[1])
    for j in range(columns.shape[1]):
        data = columns.data[columns.indptr[j] : columns.indptr[j + 1]]
        out[j] = np.partition(data, len(data) - cap)[len(data) - cap]
        if np.count_nonzero(np.abs(data - out[j]) <= MARGIN) > 1:
            out[j] = np.nan
    return out


def _sides(weights: np.ndarray, last: np.ndarray) -> np.ndarray:
    """1 where a weight is above the list's lowest, -1 below it, 0 too close to tell (and
    where the lowest is tied, NaN)."""
    return np.where(weights > last + MARGIN, 1, np.where(weights < last - MARGIN, -1, 0))


def _held(rows: sparse.csr_matrix, lowest: np.ndarray) -> sparse.csr_matrix:
    """``rows`` without the weights at or below their term's ``lowest`` (0: all kept)."""
    kept = rows.copy()
    kept.data = np.where(kept.data > lowest[kept.indices], kept.data, 0.0)
    kept.eliminate_zeros()
    return kept


def kept_lists(
    stored: pl.DataFrame,
    index: LexicalIndex,
    row_of: Mapping[str, int],
    changed: ChangedRows,
) -> dict[str, KeptList]:
    """The stored lists (``source_url, lexical_hits, lexical_cut, lexical_floor``: unchanged
    sources searched with this crawl's salt) that no change can move (see the module), by
    source; ``row_of``: each page's row in the index's matrix."""
    frame = stored.filter(
        pl.col("lexical_hits").is_not_null()
        & pl.col("lexical_floor").is_not_null()
        & pl.col("source_url").is_in(list(row_of))
    )
    if frame.is_empty():
        return {}
    sources = frame["source_url"].to_list()
    rows = index.matrix[[row_of[s] for s in sources]]
    lookups = heaviest(rows, index.settings.query_terms)
    cut = frame["lexical_cut"].fill_null(np.inf).to_numpy()
    champions = changed.champions(index)
    floor = frame["lexical_floor"].to_numpy()
    keep = _unmoved(rows, lookups, changed, champions, cut, floor)
    if len(champions.moved):
        keep &= np.asarray(lookups[:, champions.moved].getnnz(axis=1) == 0)
    columns = frame.filter(pl.Series(keep)).select(
        "source_url", "lexical_hits", "lexical_cut", "lexical_floor"
    )
    return {s: KeptList(tuple(urls), c, f) for s, urls, c, f in columns.iter_rows()}


PRODUCT_CELLS = 1 << 21  # (source, changed page) products held at a time (16 MB a matrix)


class Sides(NamedTuple):
    """Where each changed page (a column) stands for each source (a row): ``out``, its partial
    sum below the source's cut with both its rows; ``inside``, above it with both; ``below``,
    its cosine below the floor (or none) with both; ``cosine``, its cosine with its new row."""

    out: np.ndarray
    inside: np.ndarray
    below: np.ndarray
    cosine: np.ndarray


def sides(
    rows: sparse.csr_matrix,
    lookups: sparse.csr_matrix,
    changed: ChangedRows,
    champions: ChampionRows,
    cut: np.ndarray,
    floor: np.ndarray,
) -> Sides:
    """The :class:`Sides` of the changed pages for sources (``rows``, ``lookups``, their
    ``cut``: infinite when none, and ``floor``, as columns), partial sums over the
    ``champions``' rows."""
    c, f = cut[:, None], floor[:, None]
    p_old = (lookups @ champions.old.T.tocsc()).toarray()
    p_new = (lookups @ champions.new.T.tocsc()).toarray()
    out = (p_old < c - MARGIN) & (p_new < c - MARGIN)
    inside = (p_old > c + MARGIN) & (p_new > c + MARGIN)
    c_old = (rows @ changed.old.T.tocsc()).toarray()
    c_new = (rows @ changed.new.T.tocsc()).toarray()
    cos = np.maximum(c_old, c_new)
    return Sides(out, inside, (cos <= 0) | (cos < f - MARGIN), c_new)


def _unmoved(
    rows: sparse.csr_matrix,
    lookups: sparse.csr_matrix,
    changed: ChangedRows,
    champions: ChampionRows,
    cut: np.ndarray,
    floor: np.ndarray,
) -> np.ndarray:
    """Whether each source's (``rows``, ``lookups``) pages ordered by exact cosine and list
    stay as they were through every changed row (see the module; :func:`sides`), ``cut`` and
    ``floor``: theirs (no cut: infinite)."""
    keep = np.ones(rows.shape[0], dtype=bool)
    if changed.old.shape[0] == 0:
        return keep
    step = max(1, PRODUCT_CELLS // changed.old.shape[0])
    for lo in range(0, rows.shape[0], step):
        part = slice(lo, lo + step)
        at = sides(rows[part], lookups[part], changed, champions, cut[part], floor[part])
        keep[part] = ((at.out | at.inside) & at.below).all(axis=1)
    return keep


def aligned_rows(frame: pl.DataFrame, urls: Sequence[str], width: int) -> sparse.csr_matrix:
    """The rows of a ``url, term_ids, weights`` frame as a matrix of ``width`` columns, one
    row for each of ``urls`` in that order (empty for a URL the frame lacks)."""
    frame = pl.DataFrame({"url": list(urls)}, schema={"url": pl.String}).join(
        frame, on="url", how="left", maintain_order="left"
    )
    return rows_matrix(frame, width)


def new_rows(
    index: LexicalIndex, row_of: Mapping[str, int], urls: Sequence[str]
) -> sparse.csr_matrix:
    """This crawl's rows of the given pages, in that order (empty for a page it lacks)."""
    at = [(i, row_of[u]) for i, u in enumerate(urls) if u in row_of]
    pick = sparse.csr_matrix(
        (np.ones(len(at)), ([i for i, _ in at], [r for _, r in at])),
        shape=(len(urls), index.matrix.shape[0]),
    )
    return sparse.csr_matrix(pick @ index.matrix)
