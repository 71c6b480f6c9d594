"""The page just below a TF-IDF list's cut: kept known between crawls, taken in when one page
leaves the pages the index orders.

A search stores, beside a source's list (:mod:`~linkpipe.lib.links.kept_lexical`), the page
of highest partial sum below the index's cut and that sum (its *next* page; none when another
sum is within a tie of it or of the cut). Every page outside the ones ordered has at most that
sum. A refresh keeps knowing it while that stays true: the next page is no changed or boundary
page (its sum did not move), no such page below the cut now reaches its sum, and no page
entered the ones ordered (those pushed out would come above it). Otherwise the list is kept
without a next page.

When the only page that moves a list is one changed page leaving the pages ordered (above the
cut before, below it now) with a cosine below the floor, the last place goes to whichever of
it and the next page has the higher partial sum now: the changed page (it stays, the cut is
its sum, the next page stays next) or the next page (it comes in and must have a cosine below
the floor for the list to stay; the cut is its sum, and the page after it is not known). Every
other page below the cut has at most the next page's sum, so the list is the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl

from linkpipe.lib.links.champion_lists import MARGIN


def next_columns(frame: pl.DataFrame) -> tuple[Sequence[str | None], np.ndarray]:
    """The stored next pages' URLs and partial sums (NaN: none)."""
    urls = frame["lexical_next"].to_list()
    return urls, frame["lexical_next_partial"].fill_null(np.nan).to_numpy()


def known_next(
    urls: Sequence[str | None],
    partial: np.ndarray,
    row_of: Mapping[str, int],
    moved_pages: np.ndarray,
    out_top: np.ndarray,
    raised: np.ndarray,
) -> np.ndarray:
    """Each source's next page's row in this crawl's matrix where it is still known (see the
    module), -1 elsewhere (``urls``, ``partial``: the stored next pages, :func:`next_columns`;
    ``moved_pages``: the rows of the changed and boundary pages; ``out_top``: the highest
    partial sum now of a page below the cut both times; ``raised``: whether pages entered)."""
    rows = np.array([row_of.get(u, -1) if u is not None else -1 for u in urls], np.int64)
    stale = np.isin(rows, moved_pages) | ~(out_top < partial - MARGIN) | raised
    return np.where(stale, -1, rows)


def left_one(
    next_partial: float, leaving_partial: float, floor: float, next_cosine: float
) -> tuple[float, bool] | None:
    """The new cut when the one page leaving a source's ordered pages (``leaving_partial``
    now) gives way to its next page (``next_partial``, ``next_cosine`` with the source) or
    keeps the last place, and whether the next page stays known; None when neither can be
    told (a tie, the next page's cosine reaching the floor, or the leaving page without a
    partial sum now)."""
    if leaving_partial <= 0:
        return None  # (a page without a partial sum now leaves fewer to cut, maybe none)
    if leaving_partial > next_partial + MARGIN:
        return leaving_partial, True
    if leaving_partial >= next_partial - MARGIN:
        return None
    if next_cosine > 0 and next_cosine >= floor - MARGIN:
        return None
    return next_partial, False
