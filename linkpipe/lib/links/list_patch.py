"""TF-IDF lists a refresh patches instead of querying the lexical index again.

A source's list (:mod:`~linkpipe.lib.links.kept_lexical`) is the first pages by exact cosine
among those the index orders (the pages above its cut of partial sums). When the pages the
index orders are the same before and after the changes (every changed or boundary page on
one side of the cut both times, none entering or leaving), but a changed page the index
orders both times has a cosine at or above the list's floor, the list moves only through
those pages: every other page the index orders keeps its cosine, and those outside the list
had one at most the floor. The new list is then the first of the list's unchanged pages and
those changed pages by exact cosine, as long as its last one is still above the old floor
(else a page outside the list, of unknown cosine, may come next) and no two of them tie.
A search also stores the list's *runner-up*: the page it ordered of highest cosine after the
list, every other one below it. While that stays true (:func:`known_runners`), the runner-up
is ranked with them and bounds the rest instead of the floor: a page of the list falling
below the floor gives its place to whichever comes first. The patched list's runner-up is
the first page ranked after it when it is above every page not ranked. A short list (fewer
pages than asked, floor 0) held every page the index ordered with a positive cosine: it is
patched when it does not grow (how many it asked for is not stored).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from scipy import sparse

from linkpipe.lib.links.champion_lists import MARGIN


class Moved(NamedTuple):
    """A source whose list moved through ``pages`` (rows of this crawl's matrix, -1 for a
    page gone) that the index orders before and after, with their ``cosines`` now."""

    source: int
    pages: np.ndarray
    cosines: np.ndarray


def known_runners(
    urls: Sequence[str | None],
    cosines: np.ndarray,
    row_of: Mapping[str, int],
    moved_pages: np.ndarray,
    entered: np.ndarray,
    settled_top: np.ndarray,
) -> np.ndarray:
    """Each source's runner-up's row in this crawl's matrix where it is still known, -1
    elsewhere (``urls``, ``cosines``: the stored runners-up, NaN for none): it is no changed or
    boundary page (its cosine and place among the pages ordered did not move), no page entered
    the pages ordered (it may have been pushed out, or a page above it come in), and no other
    changed page the index may order now has a cosine reaching it (``settled_top``)."""
    rows = np.array([row_of.get(u, -1) if u is not None else -1 for u in urls], np.int64)
    stale = np.isin(rows, moved_pages) | entered | ~(settled_top < cosines - MARGIN)
    return np.where(stale, -1, rows)


Runner = tuple[int, float]  # a runner-up's row and cosine


def patched_list(
    row: sparse.csr_matrix,
    listed: Sequence[str],
    floor: float,
    moved: Moved,
    matrix: sparse.csr_matrix,
    row_of: Mapping[str, int],
    url_of: Mapping[int, str],
    runner: Runner | None = None,
    taken_in: Sequence[int] = (),
) -> tuple[tuple[str, ...], float, Runner | None] | None:
    """The source's new list, floor and runner-up (``row``: its TF-IDF row; ``listed``,
    ``floor``: its stored list; ``runner``: its runner-up where still known; ``taken_in``:
    unchanged pages that came into the pages ordered, see :mod:`list_next`), None when the
    patch cannot tell (see the module)."""
    cosine = {int(p): float(c) for p, c in zip(moved.pages, moved.cosines, strict=True)}
    members = [row_of.get(u, -1) for u in listed]
    if -1 in members:
        return None
    extra = [runner[0]] if runner is not None and floor > 0 else []
    unchanged = [m for m in [*members, *extra, *taken_in] if m not in cosine]
    if unchanged:
        sims = (row @ matrix[unchanged].T).toarray()[0]
        cosine |= dict(zip(unchanged, sims.tolist(), strict=True))
    if runner is not None and extra and abs(cosine[extra[0]] - runner[1]) > MARGIN:
        del cosine[extra.pop()]  # not the page the search stored (its row changed): not known
    ranked = sorted((p for p in cosine if p >= 0), key=lambda p: (-cosine[p], p))
    ranked = [p for p in ranked if cosine[p] > 0]  # weights are positive: no overlap is 0
    k = len(listed)
    values = [cosine[p] for p in ranked]
    if floor <= 0:
        if len(ranked) > k or _ties(values):
            return None
        return tuple(url_of[p] for p in ranked), 0.0, None
    rest = cosine[extra[0]] if extra else floor  # every page ordered not ranked: at most this
    if len(ranked) < k or not (ranked[k - 1] in extra or values[k - 1] > rest + MARGIN):
        return None
    if _ties(values[: k + 1]):
        return None  # a tie the index may order either way
    top = ranked[:k]
    runner_after = _runner_after(ranked, values, k, rest, extra)
    return tuple(url_of[p] for p in top), values[k - 1], runner_after


def _runner_after(
    ranked: list[int], values: list[float], k: int, rest: float, extra: list[int]
) -> Runner | None:
    """The patched list's runner-up: the first page ranked after it, when it is the stored
    runner-up (``extra``) or above every page ordered but not ranked (at most ``rest``: the
    stored runner-up's cosine, or the old floor), and no page ranked ties with it."""
    if len(ranked) <= k or set(extra) & set(ranked[:k]):
        return None  # the runner-up taken in: the page after it is not known
    if len(ranked) > k + 1 and values[k] - values[k + 1] <= MARGIN:
        return None
    if ranked[k] not in extra and values[k] <= rest + MARGIN:
        return None
    return ranked[k], values[k]


def _ties(values: list[float]) -> bool:
    """Whether two consecutive cosines are within :data:`MARGIN`."""
    return any(a - b <= MARGIN for a, b in zip(values, values[1:], strict=False))
