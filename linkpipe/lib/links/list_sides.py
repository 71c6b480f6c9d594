"""Where each changed or boundary page stands for each source whose TF-IDF list a refresh may
keep (:mod:`~linkpipe.lib.links.kept_lexical`): below the index's cut or above it, before and
after the changes, with a cosine below the list's floor or not."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import sparse

from linkpipe.lib.links.champion_lists import MARGIN, ChampionRows


class Sides(NamedTuple):
    """Where each changed or boundary page (a column) stands for each source (a row): ``out``,
    its partial sum below the source's cut with both its rows; ``inside``, above it with
    both; ``below``, its cosine below the floor (or none) with both (a boundary page's
    cosine does not change: always); ``entering``, below the cut before, above it now, with
    a cosine below the floor; ``entered``: below the cut before, above it now, whatever its
    cosine; ``left``: above it before, below it now; ``cosine`` and ``partial``: with its new
    row."""

    out: np.ndarray
    inside: np.ndarray
    below: np.ndarray
    entering: np.ndarray
    entered: np.ndarray
    left: np.ndarray
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
    left = (p_old > top + MARGIN) & (p_new < low - MARGIN)
    uncut = ~np.isfinite(cut)
    if uncut.any():  # every page with a partial sum was ordered: see _uncut
        out[uncut], inside[uncut] = _uncut(p_old[uncut], p_new[uncut], champions.changed)
    return Sides(out, inside, below, entering, entered, left, c_new, p_new)


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
