"""TF-IDF neighbours kept between crawls: a source the changed rows cannot reach finds, when the
lexical index is queried again, exactly the neighbours it kept; the others are queried."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from linkpipe.lib.links.kept_lexical import ChangedRows, KeptList, kept_lists
from linkpipe.lib.text.lexical_index import IndexSettings, LexicalIndex

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


def _lists(index: LexicalIndex, urls: list[str]) -> tuple[list[list[str]], list]:
    bounds: list = []
    found = index.neighbours(list(range(len(urls))), K, bounds=bounds)
    return [[urls[j] for j in rows] for rows in found], bounds


def test_a_list_no_changed_row_can_move_is_what_the_index_finds_again():
    rng = np.random.default_rng(0)
    before = _rows(rng, 500)
    urls = [f"/p{i:03d}" for i in range(500)]
    old_index = LexicalIndex(before, SETTINGS)
    lists, bounds = _lists(old_index, urls)
    assert any(cut is not None for cut, _ in bounds)  # queries whose pages were cut
    moved = [4, 77, 78, 250, 499]
    after = before.tolil()
    replacement = _rows(np.random.default_rng(1), len(moved))
    for n, row in enumerate(moved):
        after[row] = replacement[n]
    after = after.tocsr()
    new_index = LexicalIndex(after, SETTINGS)
    changed = ChangedRows(before[moved], after[moved])
    assert len(changed.capped_terms(new_index)) > 0  # changed pages hold capped terms
    stored = {
        u: KeptList(tuple(found), *b)
        for i, (u, found, b) in enumerate(zip(urls, lists, bounds, strict=True))
        if i not in moved
    }
    row_of = {u: i for i, u in enumerate(urls)}
    kept = kept_lists(stored, new_index, row_of, changed)

    now, now_bounds = _lists(new_index, urls)
    assert 0.3 * len(stored) < len(kept) < len(stored)  # many kept, not all
    for url, found in kept.items():
        assert list(found.urls) == now[row_of[url]]  # the very list a query gives
        assert (found.cut, found.floor) == now_bounds[row_of[url]]
    differ = [u for u in stored if list(stored[u].urls) != now[row_of[u]]]
    assert differ and not set(differ) & set(kept)  # every list that moved is queried again


def test_without_changes_every_list_is_kept_and_a_short_list_is_reached_by_any_page():
    rows = _rows(np.random.default_rng(2), 120)
    urls = [f"/p{i:03d}" for i in range(120)]
    index = LexicalIndex(rows, SETTINGS)
    lists, bounds = _lists(index, urls)
    stored = {u: KeptList(tuple(f), *b) for u, f, b in zip(urls, lists, bounds, strict=True)}
    row_of = {u: i for i, u in enumerate(urls)}
    none = ChangedRows(rows[:0], rows[:0])
    assert kept_lists(stored, index, row_of, none) == stored
    # a source whose list is shorter than asked: any page sharing a word may join it
    short = {"/p000": KeptList(stored["/p000"].urls, None, 0.0)}
    added = ChangedRows(rows[:0], rows[[1]])
    sharing = (rows[0] @ rows[1].T).toarray()[0, 0] > 0
    assert (kept_lists(short, index, row_of, added) == {}) == sharing
