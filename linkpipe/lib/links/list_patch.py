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
A short list (fewer pages than asked, floor 0) held every page the index ordered with a
positive cosine: it is patched when it does not grow (how many it asked for is not stored).
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


def patched_list(
    row: sparse.csr_matrix,
    listed: Sequence[str],
    floor: float,
    moved: Moved,
    matrix: sparse.csr_matrix,
    row_of: Mapping[str, int],
    url_of: Mapping[int, str],
) -> tuple[tuple[str, ...], float] | None:
    """The source's new list and floor (``row``: its TF-IDF row; ``listed``, ``floor``: its
    stored list), None when the patch cannot tell (see the module)."""
    cosine = {int(p): float(c) for p, c in zip(moved.pages, moved.cosines, strict=True)}
    members = [row_of.get(u, -1) for u in listed]
    if -1 in members:
        return None
    unchanged = [m for m in members if m not in cosine]
    if unchanged:
        sims = (row @ matrix[unchanged].T).toarray()[0]
        cosine |= dict(zip(unchanged, sims.tolist(), strict=True))
    ranked = sorted((p for p in cosine if p >= 0), key=lambda p: (-cosine[p], p))
    ranked = [p for p in ranked if cosine[p] > 0]  # weights are positive: no overlap is 0
    if floor > 0:
        if len(ranked) < len(listed) or cosine[ranked[len(listed) - 1]] <= floor + MARGIN:
            return None
        ranked = ranked[: len(listed) + 1]
    elif len(ranked) > len(listed):
        return None
    values = [cosine[p] for p in ranked]
    if any(a - b <= MARGIN for a, b in zip(values, values[1:], strict=False)):
        return None  # a tie the index may order either way
    top = ranked[: len(listed)] if floor > 0 else ranked
    return tuple(url_of[p] for p in top), (cosine[top[-1]] if floor > 0 else 0.0)
