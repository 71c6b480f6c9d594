"""TF-IDF neighbours kept between crawls: a source the changed rows cannot reach finds, when the
lexical index is queried again, exactly the neighbours it kept, and its cut lies in the range
kept with them; the others are queried."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import polars as pl
from scipy import sparse

from linkpipe.lib.links import kept_lexical, list_sides
from linkpipe.lib.links.champion_lists import MARGIN, ChangedRows, champion_rows
from linkpipe.lib.links.kept_lexical import aligned_rows, kept_lists, new_rows
from linkpipe.lib.links.kept_list import KeptList, searched_list
from linkpipe.lib.text.lexical_index import Bounds, IndexSettings, LexicalIndex, heaviest

K = 6  # neighbours a query asks for
# short champion lists and few pages ordered exactly: the index's approximate regime, where
# a changed page entering a list can push another page out
SETTINGS = IndexSettings(posting_cap=40, rerank=24, query_terms=8)


def _rows(rng: np.random.Generator, n: int, topics: int = 20) -> sparse.csr_matrix:
    """TF-IDF-like rows: Zipf-drawn words, most of the page's topic (150 words each), some of
    a vocabulary every topic shares (100 words), weighted by IDF, L2-normalised."""
    terms = 100 + 150 * topics
    counts = np.zeros((n, terms))
    for i, topic in enumerate(rng.integers(0, topics, n)):
        own = 100 + 150 * topic + (rng.zipf(1.5, rng.integers(40, 90)) - 1) % 150
        common = (rng.zipf(1.5, rng.integers(10, 30)) - 1) % 100
        np.add.at(counts[i], np.concatenate([own, common]), 1.0)
    idf = np.log((1 + n) / (1 + (counts > 0).sum(axis=0))) + 1
    weights = counts * idf
    return sparse.csr_matrix(weights / np.linalg.norm(weights, axis=1, keepdims=True))


def _frame(stored: dict[str, KeptList]) -> pl.DataFrame:
    """The stored lists as the candidate step reads them."""
    return pl.DataFrame(
        {
            "source_url": list(stored),
            "lexical_hits": [list(k.urls) for k in stored.values()],
            "lexical_cut": [k.cut for k in stored.values()],
            "lexical_floor": [k.floor for k in stored.values()],
            "lexical_cut_high": [k.cut_high for k in stored.values()],
            "lexical_nexts": [list(k.next_urls) for k in stored.values()],
            "lexical_next_partials": [list(k.next_partials) for k in stored.values()],
            "lexical_runner": [k.runner_url for k in stored.values()],
            "lexical_runner_cosine": [k.runner_cosine for k in stored.values()],
        },
        schema_overrides={
            "lexical_cut": pl.Float64,
            "lexical_cut_high": pl.Float64,
            "lexical_nexts": pl.List(pl.String),
            "lexical_next_partials": pl.List(pl.Float64),
            "lexical_runner": pl.String,
            "lexical_runner_cosine": pl.Float64,
            "lexical_hits": pl.List(pl.String),
        },
    )


def _lists(index: LexicalIndex, urls: list[str]) -> tuple[list[list[str]], list[Bounds]]:
    bounds: list[Bounds] = []
    found = index.neighbours(list(range(len(urls))), K, bounds=bounds)
    return [[urls[j] for j in rows] for rows in found], bounds


def _searched(found: list[str], b: Bounds, urls: list[str]) -> KeptList:
    """The list a search stores: its pages, cut, floor, next page and runner-up."""
    return searched_list(tuple(found), b, urls)


def _stored_except(
    lists: list[list[str]], bounds: list[Bounds], urls: list[str], edited: list[int]
) -> dict[str, KeptList]:
    """The lists a search stored, for every source but the ``edited`` pages."""
    return {
        u: _searched(f, b, urls)
        for i, (u, f, b) in enumerate(zip(urls, lists, bounds, strict=True))
        if i not in edited
    }


def _edit(
    rows: sparse.csr_matrix, moved: list[int], seed: int, gone: int | None = None
) -> sparse.csr_matrix:
    """``rows`` with the ``moved`` pages' rows replaced (a page that had no row comes) and
    page ``gone`` (one of them) left without a row."""
    replacement = _rows(np.random.default_rng(seed), len(moved))
    after = rows.tolil()
    for n, row in enumerate(moved):
        after[row] = replacement[n]
    if gone is not None:
        after[gone] = 0
    out = after.tocsr()
    out.eliminate_zeros()
    return out


def _check_kept(kept: dict[str, KeptList], index: LexicalIndex, urls: list[str]) -> list:
    """Every kept list is the very list a query gives, with the cut in its range and the same
    floor; the query's lists, by page."""
    now, bounds = _lists(index, urls)
    row_of = {u: i for i, u in enumerate(urls)}
    for url, found in kept.items():
        assert list(found.urls) == now[row_of[url]]
        b = bounds[row_of[url]]
        assert b.floor == found.floor
        if found.cut is None:
            assert b.cut is None
        else:
            high = found.cut if found.cut_high is None else found.cut_high
            assert found.cut - MARGIN <= b.cut <= high + MARGIN
        # the next pages still known are the query's first ones, with their sums
        assert found.next_urls == tuple(urls[r] for r in b.next_rows[: len(found.next_urls)])
        assert np.allclose(found.next_partials, b.next_partials[: len(found.next_urls)], 0, 1e-9)
        if found.runner_url is not None:  # so is a runner-up still known
            assert found.runner_url == urls[b.runner_row]
            assert found.runner_cosine == b.runner_cosine
    return now


def test_a_list_no_changed_row_can_move_is_what_the_index_finds_again(monkeypatch):
    rng = np.random.default_rng(0)
    before = _rows(rng, 500)
    urls = [f"/p{i:03d}" for i in range(500)]
    assert any(b.cut is not None for b in _lists(LexicalIndex(before, SETTINGS), urls)[1])
    moved = [4, 77, 78, 250, 499, 300, 301]  # 300 goes (no row after), 301 comes
    before = before.tolil()
    before[301] = 0
    before = before.tocsr()
    before.eliminate_zeros()
    after = _edit(before, moved, 1, gone=300)
    lists, bounds = _lists(LexicalIndex(before, SETTINGS), urls)
    new_index = LexicalIndex(after, SETTINGS)
    at = np.array([-1 if row == 300 else row for row in moved])
    changed = ChangedRows(before[moved], after[moved], at)
    champions = champion_rows(new_index, changed)
    assert champions.old.shape[0] > len(moved)  # changed pages push unchanged ones out ...
    assert champions.new[: len(moved)].nnz < changed.new.nnz  # ... and are left out of lists
    stored = _stored_except(lists, bounds, urls, moved)
    row_of = {u: i for i, u in enumerate(urls)}
    rows_now = {u: i for u, i in row_of.items() if i != 300}  # the crawl's: the page went
    kept = kept_lists(_frame(stored), new_index, rows_now, changed)

    monkeypatch.setattr(kept_lexical, "PRODUCT_CELLS", 16)  # a few sources at a time
    assert kept_lists(_frame(stored), new_index, rows_now, changed) == kept

    now = _check_kept(kept, new_index, urls)
    assert 0.2 * len(stored) < len(kept) < len(stored)  # many kept, not all
    assert any(k.cut_high is not None for k in kept.values())  # some with pages entering
    differ = [u for u in stored if list(stored[u].urls) != now[row_of[u]]]
    assert differ and set(differ) - set(kept)  # lists that moved are queried (or patched)


def test_a_cut_kept_as_a_range_keeps_lists_right_in_the_next_refresh():
    """Two refreshes in a row: the second reads the lists the first kept, with their cut's
    range, and every list it keeps is again what a query gives."""
    urls = [f"/p{i:03d}" for i in range(400)]
    row_of = {u: i for i, u in enumerate(urls)}
    first = _rows(np.random.default_rng(4), 400)
    lists, bounds = _lists(LexicalIndex(first, SETTINGS), urls)
    stored = {u: _searched(f, b, urls) for u, f, b in zip(urls, lists, bounds, strict=True)}
    for n, moved in enumerate(([10, 20, 30, 40, 50], [60, 70, 80, 90, 15])):
        second = _edit(first, moved, 10 + n)
        index = LexicalIndex(second, SETTINGS)
        changed = ChangedRows(first[moved], second[moved], np.array(moved))
        unchanged = {u: k for u, k in stored.items() if row_of[u] not in moved}
        kept = kept_lists(_frame(unchanged), index, row_of, changed)
        now = _check_kept(kept, index, urls)
        assert len(kept) > 0.2 * len(unchanged)
        queried = _lists(index, urls)[1]
        stored = {  # what the refresh stores: lists kept as kept, the others as queried
            u: kept.get(u) or _searched(now[i], queried[i], urls) for i, u in enumerate(urls)
        }
        first = second
    assert any(k.cut_high is not None for k in stored.values())


def _touched(rows: sparse.csr_matrix, pages: list[int], seed: int) -> sparse.csr_matrix:
    """``rows`` with each of ``pages`` edited a little, as a paragraph changes: a few of its
    weights scaled, the row normalised again (it stays near the pages it was near)."""
    rng = np.random.default_rng(seed)
    out = rows.tolil()
    for page in pages:
        row = rows[page].toarray()[0]
        held = np.flatnonzero(row)
        row[rng.choice(held, max(1, len(held) // 5), replace=False)] *= rng.uniform(0.3, 2.5)
        out[page] = row / np.linalg.norm(row)
    return out.tocsr()


def test_a_list_moved_only_by_pages_ordered_both_times_is_patched_to_what_a_query_finds():
    urls = [f"/p{i:03d}" for i in range(400)]
    row_of = {u: i for i, u in enumerate(urls)}
    before = _rows(np.random.default_rng(5), 400)
    lists, bounds = _lists(LexicalIndex(before, SETTINGS), urls)
    edited = list(range(0, 400, 13))
    after = _touched(before, edited, 6)
    index = LexicalIndex(after, SETTINGS)
    changed = ChangedRows(before[edited], after[edited], np.array(edited))
    stored = _stored_except(lists, bounds, urls, edited)
    kept = kept_lists(_frame(stored), index, row_of, changed)
    now = _check_kept(kept, index, urls)  # every list kept or patched is the query's
    patched = [u for u, k in kept.items() if k.urls != stored[u].urls]
    assert len(patched) >= 5  # lists that moved, patched without a query
    searched = [u for u in stored if u not in kept]
    assert searched and any(list(stored[u].urls) != now[row_of[u]] for u in searched)


def _replacing(
    stored: dict[str, KeptList], index: LexicalIndex, row_of: dict[str, int], changed: ChangedRows
) -> set[str]:
    """The sources for which some changed page leaves the pages ordered and is replaced by
    one entering (:func:`kept_lexical._replaced`)."""
    frame = kept_lexical.stored_frame(_frame(stored), row_of)
    rows = index.matrix[[row_of[u] for u in frame["source_url"].to_list()]]
    lookups = heaviest(rows, index.settings.query_terms)
    champions = champion_rows(index, changed)
    cut = frame["lexical_cut"].fill_null(np.inf).to_numpy()
    high = frame["high"].fill_null(np.inf).to_numpy()
    at = list_sides.sides(rows, lookups, champions, cut, high, frame["lexical_floor"].to_numpy())
    gone = kept_lexical._replaced(at, champions.changed).any(axis=1)
    return {u for u, g in zip(frame["source_url"].to_list(), gone, strict=True) if g}


Edit = Callable[[sparse.csr_matrix, list[int], int], sparse.csr_matrix]


def _refreshed(
    seed: int, count: int, edit: Edit
) -> tuple[list[str], dict[str, int], LexicalIndex, ChangedRows, dict[str, KeptList]]:
    """A site of 500 pages searched, then ``count`` of them edited by ``edit``: the URLs, their
    rows, the new index, the changed rows and the lists the search stored for the others."""
    rng = np.random.default_rng(seed)
    urls = [f"/p{i:03d}" for i in range(500)]
    row_of = {u: i for i, u in enumerate(urls)}
    before = _rows(rng, 500)
    lists, bounds = _lists(LexicalIndex(before, SETTINGS), urls)
    moved = sorted(rng.choice(500, count, replace=False).tolist())
    after = edit(before, moved, seed + 1)
    changed = ChangedRows(before[moved], after[moved], np.array(moved))
    stored = _stored_except(lists, bounds, urls, moved)
    return urls, row_of, LexicalIndex(after, SETTINGS), changed, stored


def test_pages_leaving_the_ordered_ones_for_pages_entering_keep_the_list_a_query_finds():
    """Changed pages whose partial sums fall below the cut while as many others rise above it
    (each with a cosine below the floor) leave the list as it was: such lists are kept, and
    every list kept is what a query gives, its cut in the range kept with it."""
    replaced: set[str] = set()
    for seed in (2, 3, 4):
        urls, row_of, index, changed, stored = _refreshed(seed, 25, _edit)
        kept = kept_lists(_frame(stored), index, row_of, changed)
        _check_kept(kept, index, urls)
        replacing = _replacing(stored, index, row_of, changed)
        replaced |= replacing & set(kept)
        assert all(kept[u].cut_high is not None for u in replacing & set(kept))
    assert len(replaced) >= 3  # lists that lost a page from the ones ordered, kept


def test_without_changes_every_list_is_kept_and_a_short_list_is_reached_by_any_page():
    rows = _rows(np.random.default_rng(2), 120)
    urls = [f"/p{i:03d}" for i in range(120)]
    index = LexicalIndex(rows, SETTINGS)
    lists, bounds = _lists(index, urls)
    stored = {u: _searched(f, b, urls) for u, f, b in zip(urls, lists, bounds, strict=True)}
    row_of = {u: i for i, u in enumerate(urls)}
    none = ChangedRows(rows[:0], rows[:0], np.zeros(0, np.int64))
    assert kept_lists(_frame(stored), index, row_of, none) == stored
    # a source whose list is shorter than asked: any page sharing a word may join it
    short = {"/p000": KeptList(stored["/p000"].urls, None, 0.0)}
    added = ChangedRows(sparse.csr_matrix((1, rows.shape[1])), rows[[1]], np.array([1]))
    sharing = (rows[0] @ rows[1].T).toarray()[0, 0] > 0
    assert (kept_lists(_frame(short), index, row_of, added) == {}) == sharing


def test_changed_rows_are_aligned_by_page_with_empty_rows_for_pages_that_came_or_went():
    rows = _rows(np.random.default_rng(3), 5)
    index = LexicalIndex(rows, SETTINGS)
    row_of = {"/a": 0, "/b": 3}
    stored = pl.DataFrame(
        {
            "url": ["/a", "/gone"],
            "term_ids": [rows[0].indices.tolist(), rows[4].indices.tolist()],
            "weights": [rows[0].data.tolist(), rows[4].data.tolist()],
        }
    )
    urls = ["/a", "/b", "/gone"]
    old = aligned_rows(stored, urls, rows.shape[1])
    new = new_rows(index, row_of, urls)
    assert old.shape == new.shape == (3, rows.shape[1])
    assert (old[0] != rows[0]).nnz == 0 and old[1].nnz == 0 and (old[2] != rows[4]).nnz == 0
    assert (new[0] != rows[0]).nnz == 0 and (new[1] != rows[3]).nnz == 0 and new[2].nnz == 0


def _without_runners(stored: dict[str, KeptList]) -> dict[str, KeptList]:
    return {u: replace(k, runner_url=None, runner_cosine=None) for u, k in stored.items()}


def test_a_page_of_the_list_falling_below_the_floor_gives_its_place_to_the_runner_up():
    """A list whose changed page falls below the floor is patched with the runner-up the
    search stored (without it, a page of unknown cosine might come next: it is queried), and
    so are the next refresh's lists with the runners-up the patch and the keeping left."""
    urls = [f"/p{i:03d}" for i in range(400)]
    row_of = {u: i for i, u in enumerate(urls)}
    before = _rows(np.random.default_rng(5), 400)
    lists, bounds = _lists(LexicalIndex(before, SETTINGS), urls)
    assert sum(b.runner_row >= 0 for b in bounds) > 300  # most searches know their runner-up
    stored = {u: _searched(f, b, urls) for u, f, b in zip(urls, lists, bounds, strict=True)}
    for n, edited in enumerate((list(range(0, 400, 13)), list(range(5, 400, 11)))):
        after = _touched(before, edited, 6 + n)
        index = LexicalIndex(after, SETTINGS)
        changed = ChangedRows(before[edited], after[edited], np.array(edited))
        unchanged = {u: k for u, k in stored.items() if row_of[u] not in edited}
        kept = kept_lists(_frame(unchanged), index, row_of, changed)
        now = _check_kept(kept, index, urls)  # lists, floors, runners-up: the query's
        alone = kept_lists(_frame(_without_runners(unchanged)), index, row_of, changed)
        assert set(alone) < set(kept)
        extra = [u for u in kept if u not in alone]  # kept for their runner-up alone
        assert len(extra) >= 0.2 * len(alone) and any(
            unchanged[u].runner_url in kept[u].urls for u in extra
        )
        assert sum(k.runner_url is not None for k in kept.values()) > 0.4 * len(kept)
        queried = _lists(index, urls)[1]
        stored = {u: kept.get(u) or _searched(now[i], queried[i], urls) for i, u in enumerate(urls)}
        before = after


def _one_next(stored: dict[str, KeptList]) -> dict[str, KeptList]:
    """The lists with their first next page only (as one stored alone was)."""
    return {
        u: replace(k, next_urls=k.next_urls[:1], next_partials=k.next_partials[:1])
        for u, k in stored.items()
    }


def test_pages_leaving_the_ordered_ones_give_their_places_to_the_next_pages_stored():
    """Changed pages whose partial sums fall below the cut (their cosine below the floor)
    free places that the pages just below the cut take: with the next pages a query stored,
    lists several pages left are kept, and every list kept is what a query gives."""
    more = 0
    for seed in (2, 3, 4):
        urls, row_of, index, changed, stored = _refreshed(seed, 40, _edit)
        kept = kept_lists(_frame(stored), index, row_of, changed)
        _check_kept(kept, index, urls)
        alone = kept_lists(_frame(_one_next(stored)), index, row_of, changed)
        assert set(alone) <= set(kept)
        more += len(set(kept) - set(alone))
    assert more >= 5  # lists kept only for the next pages stored after the first


def test_pages_leaving_while_pages_of_the_list_move_are_patched_to_what_a_query_finds():
    """Small edits (a paragraph each) move some changed pages out of the pages ordered and
    change the cosines of others in the list: the places freed go to the next pages and the
    list is patched with them; every list kept is what a query gives."""
    patched = 0
    for seed in (2, 3, 4):
        urls, row_of, index, changed, stored = _refreshed(seed, 60, _touched)
        kept = kept_lists(_frame(stored), index, row_of, changed)
        _check_kept(kept, index, urls)
        patched += sum(  # the cut taken down to the next pages, the list or floor moved
            k.cut != stored[u].cut and (k.urls, k.floor) != (stored[u].urls, stored[u].floor)
            for u, k in kept.items()
        )
    assert patched >= 10
