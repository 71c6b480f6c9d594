"""Champion lists before and after a refresh: the pages a changed page pushes out of a full list
or lets in (boundary pages), the rows as each list holds them, and lists that cannot be told."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from linkpipe.lib.links.champion_lists import ChangedRows, champion_rows, held
from linkpipe.lib.text.lexical_index import IndexSettings, LexicalIndex

SETTINGS = IndexSettings(posting_cap=2, rerank=4, query_terms=4)


def _matrix(rows: list[list[float]]) -> sparse.csr_matrix:
    return sparse.csr_matrix(np.array(rows, dtype=np.float64))


def test_a_changed_page_entering_a_full_list_pushes_its_lowest_page_out() -> None:
    # term 0 is held by pages 0-2 (a list of two: pages 0 and 1), term 1 by pages 0 and 3
    before = _matrix([[0.9, 0.1], [0.5, 0.0], [0.3, 0.0], [0.0, 0.7], [0.0, 0.0]])
    after = before.tolil()
    after[4] = [0.8, 0.0]  # page 4 comes with a weight above page 1's: page 1 is pushed out
    after = after.tocsr()
    index = LexicalIndex(after, SETTINGS)
    changed = ChangedRows(before[[4]], after[[4]], np.array([4]))
    rows = champion_rows(index, changed)
    assert rows.changed == 1 and rows.old.shape[0] == 2  # the changed page, then page 1
    assert rows.full_old[1].toarray().tolist() == [[0.5, 0.0]]  # page 1's whole row
    assert rows.old[1].toarray().tolist() == [[0.5, 0.0]]  # held before ...
    assert rows.new[1].nnz == 0  # ... not now
    assert rows.new[0].toarray().tolist() == [[0.8, 0.0]]  # the page that came is held
    assert rows.old[0].nnz == 0  # (it had no row)
    assert rows.lowest[0] == 0.8 and rows.lowest[1] == 0.0  # term 1: every holder kept
    assert len(rows.unclear) == 0
    assert rows.held_now(before[[1, 2]]).nnz == 0  # pages 1 and 2 are on no list of term 0
    # what the index really holds: its postings of term 0
    assert sorted(index.postings.term_rows(0)[0].tolist()) == [0, 4]


def test_a_changed_page_staying_above_a_full_list_s_lowest_moves_no_other_page() -> None:
    before = _matrix([[0.9], [0.5], [0.3]])
    after = _matrix([[0.95], [0.5], [0.3]])  # page 0's weight grows: it stays on the list
    rows = champion_rows(
        LexicalIndex(after, SETTINGS), ChangedRows(before[[0]], after[[0]], np.array([0]))
    )
    assert rows.old.shape[0] == 1  # no boundary page
    assert rows.old[0].toarray().tolist() == [[0.9]] and rows.new[0].toarray().tolist() == [[0.95]]


def test_a_list_whose_lowest_weight_ties_cannot_be_told() -> None:
    # pages 1 and 2 tie at the list's lowest weight: the index keeps either
    before = _matrix([[0.9, 0.0], [0.5, 0.0], [0.5, 0.0], [0.0, 0.4]])
    after = before.tolil()
    after[3] = [0.2, 0.4]
    after = after.tocsr()
    changed = ChangedRows(before[[3]], after[[3]], np.array([3]))
    rows = champion_rows(LexicalIndex(after, SETTINGS), changed)
    assert rows.unclear.tolist() == [0]
    assert np.isnan(rows.lowest[0])


def test_held_rows_keep_the_weights_at_or_above_each_list_s_lowest() -> None:
    rows = _matrix([[0.5, 0.2, 0.1], [0.1, 0.3, 0.0]])
    lowest = np.array([0.4, 0.0, np.nan])
    assert held(rows, lowest).toarray().tolist() == [[0.5, 0.2, 0.0], [0.0, 0.3, 0.0]]
