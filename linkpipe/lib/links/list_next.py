"""The pages just below a TF-IDF list's cut: kept known between crawls, taken in when pages
leave the pages the index orders.

A search stores, beside a source's list (:mod:`~linkpipe.lib.links.kept_lexical`), up to
:data:`~linkpipe.lib.text.lexical_index.NEXT_PAGES` pages of highest partial sum below the
index's cut, best first, with those sums (its *next* pages; they stop before a sum within a
tie of the one after it, and there are none when another sum ties with the cut). Every other
page outside the ones ordered has a sum below the last. A refresh keeps knowing the first of them (:func:`known_next`) while none of
them is a changed or boundary page (its sum did not move), no such page below the cut now
reaches the last of them, and no page entered the ones ordered (those pushed out would come
above them).

When the pages that move a list are changed pages leaving the pages ordered (above the cut
before, below it now) with a cosine below the floor, and perhaps changed pages ordered both
times, the places the leaving ones free go to the pages of highest partial sum now among
them and the next pages known (:func:`left_some`; a page without a partial sum now is not
among them), when those are above every other (the pages below the known ones, the changed
pages below the cut), no two of them tie, and a page of the pool is left below them (then
the index still cuts: more pages have a partial sum than it orders). The cut is the lowest
sum taken, the pages not taken that are still above every other are the new next pages, and
the list is patched with the pages taken in and the changed pages ordered both times
(:func:`~linkpipe.lib.links.list_patch.patched_list`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from linkpipe.lib.links.champion_lists import MARGIN
from linkpipe.lib.text.lexical_index import NEXT_PAGES, TIE


class Known(NamedTuple):
    """A source's next pages still known (rows in this crawl's matrix, sums) and the highest
    partial sum any other page below the cut may have (``rest``; +inf: not known)."""

    rows: list[int]
    partials: list[float]
    rest: float


def known_next(
    urls: Sequence[str] | None,
    partials: Sequence[float] | None,
    row_of: Mapping[str, int],
    moved_pages: set[int],
    out_top: float,
    raised: bool,
) -> Known:
    """A source's stored next pages (``urls``, ``partials``) still known (see the module;
    ``moved_pages``: the rows of the changed and boundary pages; ``out_top``: the highest
    partial sum now of a page below the cut both times; ``raised``: whether pages entered)."""
    if raised or not urls or partials is None:
        return Known([], [], np.inf)
    rows = [row_of.get(u, -1) for u in urls]
    known = 0
    while known < len(rows) and rows[known] >= 0 and rows[known] not in moved_pages:
        known += 1
    while known and not partials[known - 1] > out_top + MARGIN:
        known -= 1
    below = partials[known] if known < len(partials) else partials[-1] - TIE
    return Known(rows[:known], list(partials[:known]), max(out_top, below))


class Taken(NamedTuple):
    """What pages leaving a list's ordered ones leave: the new cut, the next pages known after
    it (rows, sums) and the pages that took the places they freed (rows, with their cosines
    now for the leaving pages; None for the next pages, whose cosines the patch computes)."""

    cut: float
    rows: list[int]
    partials: list[float]
    took: list[tuple[int, float | None]]


Entry = tuple[float, int, float | None, bool]  # a page of the pool: sum, row, cosine, next


def left_some(known: Known, leaving: Sequence[tuple[int, float, float]]) -> Taken | None:
    """The cut, the next pages and the pages taken in after the ``leaving`` pages (row,
    partial sum now, cosine now) leave the pages ordered (``known``: the next pages still
    known); None when the pages taken cannot be told (see the module; whether the list stays
    is :func:`~linkpipe.lib.links.list_patch.patched_list`'s to say)."""
    pool: list[Entry] = [(p, r, c, False) for r, p, c in leaving if p > 0]
    nexts: list[Entry] = [
        (p, r, None, True) for r, p in zip(known.rows, known.partials, strict=True)
    ]
    pool = sorted(pool + nexts, key=lambda e: -e[0])
    m = len(leaving)
    if len(pool) <= m or not _above_rest(pool[m - 1], known.rest):
        return None  # (a page of the pool left below the cut: the index still cuts)
    if any(a[0] - b[0] <= MARGIN for a, b in zip(pool[: m + 1], pool[1 : m + 1], strict=False)):
        return None  # a tie among the pages taken or with the one after them
    after: list[Entry] = []
    for n, entry in enumerate(pool[m : m + NEXT_PAGES], start=m):
        following = pool[n + 1][0] if n + 1 < len(pool) else -np.inf
        if not _above_rest(entry, known.rest) or entry[0] - following <= MARGIN:
            break
        after.append(entry)
    took = [(e[1], e[2]) for e in pool[:m]]
    return Taken(pool[m - 1][0], [e[1] for e in after], [e[0] for e in after], took)


def _above_rest(entry: Entry, rest: float) -> bool:
    """Whether a page of the pool is above every page outside it: a next page known is (see
    :func:`known_next`); a leaving page when its sum now is above ``rest``."""
    return entry[3] or entry[0] > rest + MARGIN
