"""TF-IDF neighbours a refresh takes from the previous crawl instead of querying the lexical
index (:mod:`~linkpipe.lib.text.lexical_index`).

A query of the index takes the source's heaviest terms (its *lookups*), sums over their
champion lists the partial dot product of every page they hold, keeps the ``keep`` best
partial sums (all of them when fewer pages have one) and orders those pages by exact cosine.
The gate stores, with the pages found, the partial sum at that cut (None when nothing was cut)
and the cosine of the last page found when the list is full (its *floor*; 0 when it is
shorter than asked). With the same TF-IDF statistics and index settings (the search salt),
an unchanged source asks the same query, and a page whose row did not change keeps its
cosine, and its partial sum unless a champion list it is on or near changed: the list can
move only through the *changed* pages (rows changed, came or went) and the *boundary* pages
whose lists they entered or left (:mod:`~linkpipe.lib.links.champion_lists`). The list is
kept when, for each of those pages, with its rows as the lists held them before and hold
them now:

* its partial sum is below the cut both times, or above it both times, and (a changed page)
  its cosine is below the floor both times (or none, when the list is short), so that the
  pages ordered by exact cosine are the same and none enters or leaves the list; or
* it *enters* the pages ordered (below the cut before, above it now) with a cosine below the
  floor: it joins them without joining the list, and pushes out as many of the lowest as
  enter, none of them in the list when every page of the list has a partial sum now above
  every entering page's (the pages pushed out are among the lowest of those ordered and
  entering, so never above the highest entering one).

Pages entering move the cut up, to a value at most the highest entering partial sum: the list
kept stores the cut as a range (``cut`` to ``cut_high``), and the next crawl compares with its
low end what must stay below and with its high end what must stay above. A list searched
again has an exact cut. A list that moved only through changed pages ordered both times
(their cosine at or above the floor) is patched rather than searched
(:mod:`~linkpipe.lib.links.list_patch`). No source looking up a term whose list's
membership cannot be told (two weights tie at its lowest) is kept. Ties at the cut and
among cosines are resolved in page order, which unchanged pages keep. Comparisons allow :data:`MARGIN` (the sums here are
not added up in the index's order). Tested against searching again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import polars as pl
from scipy import sparse

from linkpipe.lib.links.champion_lists import (
    MARGIN,
    ChampionRows,
    ChangedRows,
    champion_rows,
)
from linkpipe.lib.links.list_patch import Moved, patched_list
from linkpipe.lib.text.lexical_index import LexicalIndex, heaviest
from linkpipe.lib.text.tfidf import rows_matrix

__all__ = ["MARGIN", "ChangedRows", "KeptList", "aligned_rows", "kept_lists", "new_rows", "sides"]


@dataclass(frozen=True)
class KeptList:
    """A source's TF-IDF neighbours as the index found them (URLs, best first), the partial
    sum at the index's cut (None: nothing cut), the floor, and (``cut_high``) the highest the
    cut may be when pages entered the pages ordered since it was found (None: the cut is
    exact; see the module); ``as_stored``: False for a list kept otherwise than the previous
    crawl stored it (patched, or its cut's range raised): its row is written again."""

    urls: tuple[str, ...]
    cut: float | None
    floor: float
    cut_high: float | None = None
    as_stored: bool = True


def kept_lists(
    stored: pl.DataFrame,
    index: LexicalIndex,
    row_of: Mapping[str, int],
    changed: ChangedRows,
) -> dict[str, KeptList]:
    """The stored lists (``source_url, lexical_hits, lexical_cut, lexical_floor`` and, when
    stored, ``lexical_cut_high``: unchanged sources searched with this crawl's salt) that no
    change can move (see the module), by source, each with the range its cut now lies in;
    ``row_of``: each page's row in the index's matrix."""
    frame = stored.filter(
        pl.col("lexical_hits").is_not_null()
        & pl.col("lexical_floor").is_not_null()
        & pl.col("source_url").is_in(list(row_of))
    )
    if frame.is_empty():
        return {}
    if "lexical_cut_high" not in frame.columns:
        frame = frame.with_columns(lexical_cut_high=pl.lit(None, pl.Float64))
    frame = frame.with_columns(high=pl.coalesce("lexical_cut_high", "lexical_cut"))
    rows = index.matrix[[row_of[s] for s in frame["source_url"].to_list()]]
    lookups = heaviest(rows, index.settings.query_terms)
    cut = frame["lexical_cut"].fill_null(np.inf).to_numpy()
    high = frame["high"].fill_null(np.inf).to_numpy()
    champions = champion_rows(index, changed)
    floors = frame["lexical_floor"].to_numpy()
    keep, raised, moved = _unmoved(rows, lookups, champions, cut, high, floors)
    clear = np.ones(len(cut), dtype=bool)
    if len(champions.unclear):
        clear = np.asarray(lookups[:, champions.unclear].getnnz(axis=1) == 0)
    keep &= clear
    hits = frame["lexical_hits"].to_list()
    for i in np.flatnonzero(keep & (raised > high)).tolist():
        keep[i] = _members_above(index, champions, lookups[i], hits[i], row_of, raised[i])
    out: dict[str, KeptList] = {}
    columns = ("source_url", "lexical_cut", "lexical_floor", "lexical_cut_high")
    for i in np.flatnonzero(keep).tolist():
        source, low, floor, stored_high = (frame[c][i] for c in columns)
        if raised[i] > high[i]:
            out[source] = KeptList(tuple(hits[i]), low, floor, float(raised[i]), False)
        else:
            out[source] = KeptList(tuple(hits[i]), low, floor, stored_high)
    url_of = {r: u for u, r in row_of.items()} if moved else {}
    for m in (m for m in moved if clear[m.source]):
        patch = patched_list(
            rows[m.source], hits[m.source], floors[m.source], m, index.matrix, row_of, url_of
        )
        if patch is not None:
            source, low, stored_high = (frame[c][m.source] for c in columns[:2] + columns[3:])
            out[source] = KeptList(patch[0], low, patch[1], stored_high, False)
    return out


def _members_above(
    index: LexicalIndex,
    champions: ChampionRows,
    lookups: sparse.csr_matrix,
    members: Sequence[str],
    row_of: Mapping[str, int],
    entering: float,
) -> bool:
    """Whether every page of a source's list (``members``; its ``lookups``) has a partial sum
    now above the highest partial sum of the pages entering (``entering``): none of them is
    pushed out of the pages ordered by exact cosine."""
    rows = [row_of[u] for u in members if u in row_of]
    if len(rows) < len(members):
        return False  # a member gone: not a list kept
    if not rows:
        return True
    partial = (lookups @ champions.held_now(index.matrix[rows]).T).toarray()
    return bool(partial.min() > entering + MARGIN)


PRODUCT_CELLS = 1 << 21  # (source, changed page) products held at a time (16 MB a matrix)


class Sides(NamedTuple):
    """Where each changed or boundary page (a column) stands for each source (a row): ``out``,
    its partial sum below the source's cut with both its rows; ``inside``, above it with
    both; ``below``, its cosine below the floor (or none) with both (a boundary page's
    cosine does not change: always); ``entering``, below the cut before, above it now, with
    a cosine below the floor; ``entered``: below the cut before, above it now, whatever its
    cosine; ``cosine`` and ``partial``: with its new row."""

    out: np.ndarray
    inside: np.ndarray
    below: np.ndarray
    entering: np.ndarray
    entered: np.ndarray
    cosine: np.ndarray
    partial: np.ndarray


def sides(
    rows: sparse.csr_matrix,
    lookups: sparse.csr_matrix,
    champions: ChampionRows,
    cut: np.ndarray,
    high: np.ndarray,
    floor: np.ndarray,
) -> Sides:
    """The :class:`Sides` of the changed and boundary pages for sources (``rows``,
    ``lookups``, the range their cut lies in, ``cut`` to ``high``: infinite when none, and
    ``floor``, as columns), partial sums over the ``champions``' rows."""
    low, top, f = cut[:, None], high[:, None], floor[:, None]
    p_old = (lookups @ champions.old.T.tocsc()).toarray()
    p_new = (lookups @ champions.new.T.tocsc()).toarray()
    c_old = (rows @ champions.full_old.T.tocsc()).toarray()
    c_new = (rows @ champions.full_new.T.tocsc()).toarray()
    cos = np.maximum(c_old, c_new)
    below = (cos <= 0) | (cos < f - MARGIN)
    below[:, champions.changed :] = True
    was_out, now_in = p_old < low - MARGIN, p_new > top + MARGIN
    out = was_out & (p_new < low - MARGIN)
    inside = (p_old > top + MARGIN) & now_in
    entered = was_out & now_in
    entering = entered & ((c_new <= 0) | (c_new < f - MARGIN))
    uncut = ~np.isfinite(cut)
    if uncut.any():  # every page with a partial sum was ordered: see _uncut
        out[uncut], inside[uncut] = _uncut(p_old[uncut], p_new[uncut], champions.changed)
    return Sides(out, inside, below, entering, entered, c_new, p_new)


def _uncut(p_old: np.ndarray, p_new: np.ndarray, changed: int) -> tuple[np.ndarray, np.ndarray]:
    """``out`` and ``inside`` for sources whose index cut nothing (fewer pages had a partial
    sum than it orders): a page is out when it has no partial sum either time, inside when it
    has one both times; a changed page losing its own counts as out (it leaves the pages
    ordered, and its cosine is below the floor for the list to be kept). A page gaining one
    is neither: the pages ordered may now be more than the index keeps, and the lowest of
    them pushed out (a page of the list, perhaps)."""
    had, has = p_old > 0, p_new > 0
    out = ~had & ~has
    out[:, :changed] |= ~has[:, :changed]
    return out, had & has


def _unmoved(
    rows: sparse.csr_matrix,
    lookups: sparse.csr_matrix,
    champions: ChampionRows,
    cut: np.ndarray,
    high: np.ndarray,
    floor: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, list[Moved]]:
    """Whether each source's (``rows``, ``lookups``) list stays as it was through every
    changed and boundary page but for the pages entering (see the module; :func:`sides`),
    the highest partial sum of those entering (the cut's ``high`` when none enter), and the
    lists that moved only through pages ordered before and after (:mod:`list_patch`)."""
    keep, raised = np.ones(rows.shape[0], dtype=bool), high.copy()
    moved: list[Moved] = []
    pages = champions.old.shape[0]
    if pages == 0:
        return keep, raised, moved
    step = max(1, PRODUCT_CELLS // pages)
    for lo in range(0, rows.shape[0], step):
        part = slice(lo, lo + step)
        at = sides(rows[part], lookups[part], champions, cut[part], high[part], floor[part])
        settled = ((at.out | at.inside) & at.below) | at.entering
        keep[part] = settled.all(axis=1)
        entering = np.where(at.entering, at.partial, -np.inf).max(axis=1)
        raised[part] = np.maximum(raised[part], entering)
        open_ = ~keep[part] & (settled | at.inside).all(axis=1) & ~at.entered.any(axis=1)
        for r in np.flatnonzero(open_).tolist():
            pages_at = np.flatnonzero(~settled[r])
            moved.append(Moved(lo + r, champions.pages[pages_at], at.cosine[r, pages_at]))
    return keep, raised, moved


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
