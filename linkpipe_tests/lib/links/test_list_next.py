"""The page just below a TF-IDF list's cut: when it is still known, and who takes the last
place the one leaving page frees."""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import sparse

from linkpipe.lib.links.list_next import MARGIN, known_next, left_one, next_columns

# the source (row 0) and three pages: row 1 shares its words, rows 2 and 3 share none
MATRIX = sparse.csr_matrix(
    np.array([[0.6, 0.8, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
)


def _cos(page: int) -> float:
    """The source's cosine with a page (rows are unit length)."""
    return float((MATRIX[0] @ MATRIX[page].T).toarray()[0, 0])


def test_the_leaving_page_keeps_the_last_place_when_its_sum_is_still_above_the_next() -> None:
    assert left_one(0.30, 0.31, 0.9, _cos(2)) == (0.31, True)


def test_the_next_page_takes_the_last_place_when_its_cosine_is_below_the_floor() -> None:
    assert left_one(0.30, 0.10, 0.9, _cos(2)) == (0.30, False)


def test_no_verdict_when_the_next_page_would_join_the_list_or_the_sums_tie() -> None:
    assert left_one(0.30, 0.10, 0.9, _cos(1)) is None  # cosine 1.0 >= floor
    assert left_one(0.30, 0.10, 0.0, _cos(1)) is None  # a short list: any overlap joins it
    assert left_one(0.30, 0.10, 0.0, _cos(2)) == (0.30, False)  # ... none does not
    assert left_one(0.30, 0.30 + MARGIN / 2, 0.9, _cos(2)) is None  # a tie
    assert left_one(0.30, 0.0, 0.9, _cos(2)) is None  # no partial sum left


def test_a_next_page_stays_known_only_while_nothing_can_pass_it() -> None:
    frame = pl.DataFrame(
        {
            "lexical_next": ["/b", "/b", "/b", "/b", None, "/gone"],
            "lexical_next_partial": [0.3, 0.3, 0.3, 0.3, None, 0.3],
        }
    )
    row_of = {"/a": 0, "/b": 1, "/c": 2}
    out_top = np.array([0.1, 0.3, 0.1, 0.1, 0.1, 0.1])
    raised = np.array([False, False, True, False, False, False])
    moved = np.array([2])  # a changed page other than the next one
    got = known_next(*next_columns(frame), row_of, moved, out_top, raised)
    assert got.tolist() == [1, -1, -1, 1, -1, -1]  # reached by an out page, pages entered
    stored = next_columns(frame)
    assert known_next(*stored, row_of, np.array([1]), out_top, raised).tolist() == [-1] * 6
