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
  entering, so never above the highest entering one); or
* (a changed page, with a partial sum now) it *leaves* the pages ordered (above the cut
  before, below it now) with a cosine below the floor both times, and no more such pages
  leave than pages enter as above: each place a leaving page frees goes to an entering one,
  none comes from below the cut, and the pages pushed out, if more enter, are as above (at 30k
  pages, with the deeper rerank the index takes there, most lists a 1 % edit left as they
  were had a page leave: docs/benchmarks.md).

Pages entering move the cut up, to a value at most the highest entering partial sum: the list
kept stores the cut as a range (``cut`` to ``cut_high``), and the next crawl compares with its
low end what must stay below and with its high end what must stay above. A list searched
again has an exact cut. A list that moved only through changed pages ordered both times
(their cosine at or above the floor) is patched rather than searched
(:mod:`~linkpipe.lib.links.list_patch`: with the *runner-up* stored with the list, the page
ordered of highest cosine after it, while no change can pass it), and one moved by changed
pages leaving the pages ordered below the floor (perhaps with changed pages ordered both
times) gives the places they free to the pages stored just below the cut, and is patched
with them (:mod:`~linkpipe.lib.links.list_next`). No source looking up a term whose list's
membership cannot be told (two weights tie at its lowest) is kept. Ties at the cut and
among cosines are resolved in page order, which unchanged pages keep. Comparisons allow
:data:`MARGIN` (the sums here are not added up in the index's order). Tested against
searching again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from linkpipe.lib.links.kept_list import KeptList, StoredLists, stored_frame
from linkpipe.lib.links.list_next import Taken, known_next, left_some
from linkpipe.lib.links.list_patch import Moved, known_runners, patched_list
from linkpipe.lib.links.list_sides import Sides, sides
from linkpipe.lib.text.lexical_index import LexicalIndex, heaviest
from linkpipe.lib.text.tfidf import rows_matrix


def kept_lists(
    stored: pl.DataFrame,
    index: LexicalIndex,
    row_of: Mapping[str, int],
    changed: ChangedRows,
) -> dict[str, KeptList]:
    """The stored lists (``source_url, lexical_hits, lexical_cut, lexical_floor`` and, when
    stored, ``lexical_cut_high``, ``lexical_nexts``, ``lexical_next_partials``,
    ``lexical_runner``, ``lexical_runner_cosine``: unchanged sources searched with this
    crawl's salt) that no change can move, patched, or moved by pages leaving (see the
    module), by source, each with the range its cut now lies in and its next page and
    runner-up where still known; ``row_of``: each page's row in the index's matrix."""
    frame = stored_frame(stored, row_of)
    if frame.is_empty():
        return {}
    rows = index.matrix[[row_of[s] for s in frame["source_url"].to_list()]]
    lookups = heaviest(rows, index.settings.query_terms)
    cut = frame["lexical_cut"].fill_null(np.inf).to_numpy()
    high = frame["high"].fill_null(np.inf).to_numpy()
    champions = champion_rows(index, changed)
    floors = frame["lexical_floor"].to_numpy()
    v = _unmoved(rows, lookups, champions, cut, high, floors)
    clear = np.ones(len(cut), dtype=bool)
    if len(champions.unclear):
        clear = np.asarray(lookups[:, champions.unclear].getnnz(axis=1) == 0)
    hits = frame["lexical_hits"].to_list()
    keep, entered = v.keep & clear, v.raised > high
    check = np.flatnonzero(keep & entered)
    if len(check):
        listed = [hits[i] for i in check.tolist()]
        args = (lookups[check], listed, row_of, v.raised[check])
        keep[check] = _members_above(index, champions, *args)
    url_of = {r: u for u, r in row_of.items()} if v.moved or v.leaving else {}
    lists = StoredLists(frame, hits, url_of)
    moved = set(champions.pages.tolist())
    lists.known = [
        known_next(urls, sums, row_of, moved, top, bool(up))
        for urls, sums, top, up in zip(
            lists.next_urls, lists.next_sums, v.out_top.tolist(), entered, strict=True
        )
    ]
    lists.runners = known_runners(
        lists.runner_urls, lists.runner_cosines, row_of, champions.pages, entered, v.other_top
    )
    out = {
        lists.source(i): lists.kept(i, bool(entered[i]), float(v.raised[i]))
        for i in np.flatnonzero(keep).tolist()
    }
    for m in (m for m in v.moved if clear[m.source]):
        patch = patched_list(
            rows[m.source], hits[m.source], floors[m.source], m, index.matrix, row_of,
            lists.url_of, lists.runner(m.source),
        )  # fmt: skip
        if patch is not None:
            out[lists.source(m.source)] = lists.patched(m.source, *patch)
    out |= _left_some(lists, v, rows, index, row_of, clear & ~keep)
    return out


def _left_some(
    lists: StoredLists,
    v: Verdicts,
    rows: sparse.csr_matrix,
    index: LexicalIndex,
    row_of: Mapping[str, int],
    asked: np.ndarray,
) -> dict[str, KeptList]:
    """The lists of the ``asked`` sources moved by changed pages leaving the pages ordered
    (and perhaps by changed pages ordered both times), whose places the next pages known or
    the pages themselves fill (:func:`~list_next.left_some`). A list no page taken in can
    join (each one's cosine below the floor) and no changed page of the list moved is kept as
    it was; the others are patched with the pages taken in (:func:`_patched_after`)."""
    taken = {i: left_some(lists.known[i], v.leaving[i][0]) for i in v.leaving if asked[i]}
    pairs = [(i, r) for i, t in taken.items() if t is not None for r, c in t.took if c is None]
    owner, pages = [i for i, _ in pairs], [r for _, r in pairs]
    sums = np.asarray(rows[owner].multiply(index.matrix[pages]).sum(axis=1)).ravel()
    top = dict.fromkeys(taken, -np.inf)  # the highest cosine taken in (compared with margins)
    for i, cosine in zip(owner, sums.tolist(), strict=True):
        top[i] = max(top[i], cosine)
    out = {}
    for i, t in taken.items():
        if t is None:
            continue
        moved = v.leaving[i][1]
        stays = max([top[i], *(c for _, c in t.took if c is not None)])
        if not len(moved.pages) and stays < lists.floors[i] - MARGIN:
            runner = lists.runner(i)  # still the runner-up when every page taken is below it
            runner = runner if runner is not None and stays < runner[1] - MARGIN else None
            hits = tuple(lists.hits[i])
            out[lists.source(i)] = lists.left(i, t, hits, lists.floors[i], runner)
            continue
        patch = _patched_after(lists, i, t, moved, rows[i], index, row_of)
        if patch is not None:
            out[lists.source(i)] = lists.left(i, t, *patch)
    return out


def _patched_after(
    lists: StoredLists,
    i: int,
    taken: Taken,
    moved: Moved,
    row: sparse.csr_matrix,
    index: LexicalIndex,
    row_of: Mapping[str, int],
) -> tuple[tuple[str, ...], float, tuple[int, float] | None] | None:
    """Source ``i``'s list patched with the pages ``taken`` in and its changed pages ordered
    both times (the next pages' cosines computed by the patch as the index adds them up: they
    may be stored as the floor or the runner-up)."""
    given = [(r, c) for r, c in taken.took if c is not None]  # leaving pages staying
    pages = np.concatenate([moved.pages, np.array([r for r, _ in given], np.int64)])
    both = Moved(i, pages, np.concatenate([moved.cosines, [c for _, c in given]]))
    fresh = [r for r, c in taken.took if c is None]
    args = (index.matrix, row_of, lists.url_of, lists.runner(i), fresh)
    return patched_list(row, lists.hits[i], lists.floors[i], both, *args)


def _members_above(
    index: LexicalIndex,
    champions: ChampionRows,
    lookups: sparse.csr_matrix,
    hits: Sequence[Sequence[str]],
    row_of: Mapping[str, int],
    entering: np.ndarray,
) -> np.ndarray:
    """For each source (a row of ``lookups``; ``hits``: its list), whether every page of its
    list has a partial sum now above ``entering`` (the highest partial sum of the pages
    entering): none of them is pushed out of the pages ordered by exact cosine. One product
    for every (source, page of its list) pair."""
    rows = [[row_of.get(u, -1) for u in listed] for listed in hits]
    rows = [r if -1 not in r else [] for r in rows]  # a page of the list gone: not kept
    ok = np.array([len(r) == len(listed) for r, listed in zip(rows, hits, strict=True)])
    owner = np.repeat(np.arange(len(rows)), [len(r) for r in rows])
    pages = np.array([p for r in rows for p in r], dtype=np.int64)
    if not len(pages):
        return ok
    held = champions.held_now(index.matrix[pages])
    partial = np.asarray(lookups[owner].multiply(held).sum(axis=1)).ravel()
    lowest = np.full(len(rows), np.inf)
    np.minimum.at(lowest, owner, partial)
    return ok & (lowest > entering + MARGIN)


PRODUCT_CELLS = 1 << 21  # (source, changed page) products held at a time (16 MB a matrix)


class Verdicts(NamedTuple):
    """What :func:`_unmoved` finds of each source: its list ``keep``s; the highest partial sum
    of the pages entering (``raised``: the cut's high end when none); the lists that moved
    only through pages ordered before and after (``moved``, see :mod:`list_patch`); the
    highest partial sum now of a page below the cut both times (``out_top``: -inf when none),
    the sources moved only by changed pages leaving the pages ordered with a cosine below
    the floor (``leaving``: those pages' rows and partial sums now; see :mod:`list_next`),
    and the highest
    cosine now of a changed page settled that the index may order now (``other_top``: -inf
    when none; see :func:`~list_patch.known_runners`)."""

    keep: np.ndarray
    raised: np.ndarray
    moved: list[Moved]
    out_top: np.ndarray
    leaving: dict[int, tuple[list[tuple[int, float, float]], Moved]]
    other_top: np.ndarray


def _unmoved(
    rows: sparse.csr_matrix,
    lookups: sparse.csr_matrix,
    champions: ChampionRows,
    cut: np.ndarray,
    high: np.ndarray,
    floor: np.ndarray,
) -> Verdicts:
    """The :class:`Verdicts` of sources (``rows``, ``lookups``) through every changed and
    boundary page (see the module; :func:`sides`), a chunk of sources at a time."""
    n = rows.shape[0]
    none = np.full(n, -np.inf)
    v = Verdicts(np.ones(n, bool), high.copy(), [], none, {}, none.copy())
    pages, pages_changed = champions.old.shape[0], champions.changed
    step = max(1, PRODUCT_CELLS // max(pages, 1))
    for lo in range(0, n if pages else 0, step):
        part = slice(lo, lo + step)
        at = sides(rows[part], lookups[part], champions, cut[part], high[part], floor[part])
        settled = ((at.out | at.inside) & at.below) | at.entering
        v.keep[part] = (settled | _replaced(at, pages_changed)).all(axis=1)
        entering = np.where(at.entering, at.partial, -np.inf).max(axis=1)
        v.raised[part] = np.maximum(v.raised[part], entering)
        v.out_top[part] = np.where(at.out, at.partial, -np.inf).max(axis=1)
        v.other_top[part] = _settled_top(at, settled, cut[part], pages_changed)
        quiet = ~v.keep[part] & ~at.entered.any(axis=1)
        leaving = at.left & at.below
        leaving[:, pages_changed:] = False
        leaving &= np.isfinite(cut[part])[:, None]
        for r in np.flatnonzero(quiet & (settled | at.inside | leaving).all(axis=1)).tolist():
            _moved_or_leaving(v, lo + r, at, r, ~settled[r] & ~leaving[r], leaving[r], champions)
    return v


def _moved_or_leaving(
    v: Verdicts, i: int, at: Sides, r: int, inside: np.ndarray, left: np.ndarray, c: ChampionRows
) -> None:
    """Record source ``i`` (row ``r`` of a chunk's sides) moved only by changed or boundary
    pages ordered both times (``inside``, see :mod:`list_patch`) and changed pages leaving the
    pages ordered with a cosine below the floor (``left``, see :mod:`list_next`)."""
    cols = np.flatnonzero(inside)
    moved = Moved(i, c.pages[cols], at.cosine[r, cols])
    if not left.any():
        v.moved.append(moved)
        return
    cols = np.flatnonzero(left)
    pages, sums, cosines = c.pages[cols].tolist(), at.partial[r, cols].tolist(), at.cosine[r, cols]
    v.leaving[i] = (list(zip(pages, sums, cosines.tolist(), strict=True)), moved)


def _replaced(at: Sides, changed: int) -> np.ndarray:
    """The changed pages (the first ``changed`` columns) leaving the pages ordered with a
    cosine below the floor and a partial sum now, for the sources where no more of them leave
    than pages enter with a cosine below the floor: each place one frees is taken by a page
    entering, none comes from below the cut, and the list is the same (its cut moves within
    the entering pages' range, as when pages only enter; see the module)."""
    gone: np.ndarray = at.left & at.below & (at.partial > 0)
    gone[:, changed:] = False
    gone[gone.sum(axis=1) > at.entering.sum(axis=1)] = False
    return gone


def _settled_top(at: Sides, settled: np.ndarray, cut: np.ndarray, changed: int) -> np.ndarray:
    """For each source, the highest cosine now of a settled changed page (the first
    ``changed`` columns) the index may order now: a partial sum now, not below the cut (any,
    when nothing was cut); -inf when none. Boundary pages keep their cosines, changed pages of
    the list are never settled, and a page entering moves the runner-up (it is not kept)."""
    low = cut[:, None]
    ordered = (at.partial > 0) & ((at.partial >= low - MARGIN) | ~np.isfinite(low))
    mine = settled & ordered
    mine[:, changed:] = False
    top: np.ndarray = np.where(mine, at.cosine, -np.inf).max(axis=1)
    return top


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
