"""The pages just below a TF-IDF list's cut: which a query stores, which stay known, and which
take the places that pages leaving the ones ordered free."""

from __future__ import annotations

import numpy as np

from linkpipe.lib.links.list_next import MARGIN, Known, Taken, known_next, left_some
from linkpipe.lib.text.lexical_index import TIE, next_pages


def test_a_query_stores_the_best_sums_below_the_cut_and_stops_at_a_tie() -> None:
    places = np.array([10, 11, 12, 13, 14, 15, 16], np.int32)
    scores = np.array([0.9, 0.5, 0.45, 0.3, 0.2, 0.1, 0.05])
    assert next_pages(places, scores, 0.5) == ([12, 13, 14, 15], [0.45, 0.3, 0.2, 0.1])
    assert next_pages(places, scores, 0.5, count=2) == ([12, 13], [0.45, 0.3])
    tied = np.array([0.9, 0.5, 0.45, 0.3, 0.3 + TIE / 2, 0.1, 0.05])
    assert next_pages(places, tied, 0.5) == ([12], [0.45])  # the two at 0.3 in either order
    at_cut = np.array([0.9, 0.5, 0.5 + TIE / 2, 0.3, 0.2, 0.1, 0.05])
    assert next_pages(places, at_cut, 0.5) == ([], [])  # which of them is cut is not known
    assert next_pages(places, scores, 0.05) == ([], [])  # nothing below the cut


ROW_OF = {"/a": 1, "/b": 2, "/c": 3, "/d": 4}


def test_next_pages_stay_known_until_a_moved_one_or_one_a_changed_page_reaches() -> None:
    urls, sums = ["/a", "/b", "/c"], [0.4, 0.3, 0.2]
    assert known_next(urls, sums, ROW_OF, set(), 0.1, False) == Known([1, 2, 3], sums, 0.2 - TIE)
    # a changed page below the cut now at 0.25: the last one may be passed
    assert known_next(urls, sums, ROW_OF, set(), 0.25, False) == Known([1, 2], [0.4, 0.3], 0.25)
    # the second moved (a changed or boundary page): the first alone, the rest below 0.3
    assert known_next(urls, sums, ROW_OF, {2}, 0.1, False) == Known([1], [0.4], 0.3)
    assert known_next(["/gone", "/b"], [0.4, 0.3], ROW_OF, set(), 0.1, False).rows == []
    assert known_next(urls, sums, ROW_OF, set(), 0.1, True) == Known([], [], np.inf)  # entered
    assert known_next(None, None, ROW_OF, set(), 0.1, False) == Known([], [], np.inf)


KNOWN = Known([1, 2, 3], [0.4, 0.3, 0.2], 0.2 - TIE)  # every other page below the cut < 0.2


def test_a_leaving_page_still_above_the_next_ones_keeps_its_place() -> None:
    got = left_some(KNOWN, [(9, 0.45, 0.3)])
    assert got == Taken(0.45, [1, 2, 3], [0.4, 0.3, 0.2], [(9, 0.3)])


def test_the_next_pages_take_the_places_pages_leaving_free() -> None:
    got = left_some(KNOWN, [(8, 0.25, 0.3), (9, 0.01, 0.3)])
    assert got == Taken(0.3, [8, 3], [0.25, 0.2], [(1, None), (2, None)])  # 8 is known next
    three = [(8, 0.35, 0.3), (9, 0.32, 0.3), (7, 0.05, 0.3)]
    assert left_some(KNOWN, three) == Taken(
        0.32, [2, 3], [0.3, 0.2], [(1, None), (8, 0.3), (9, 0.3)]
    )
    unknown_rest = Known([1], [0.4], 0.3)  # the second stored page moved
    got = left_some(unknown_rest, [(8, 0.35, 0.3)])
    assert got == Taken(0.4, [8], [0.35], [(1, None)])
    assert left_some(unknown_rest, [(8, 0.25, 0.3)]) == Taken(0.4, [], [], [(1, None)])
    # a page without a partial sum now takes no place: the next page does
    got = left_some(KNOWN, [(9, 0.0, 0.3)])
    assert got == Taken(0.4, [2, 3], [0.3, 0.2], [(1, None)])


def test_no_verdict_when_the_pages_taken_tie_or_cannot_be_told() -> None:
    assert left_some(KNOWN, [(9, 0.4 + MARGIN / 2, 0.3)]) is None  # a tie
    two_leaving = [(8, 0.01, 0.3), (9, 0.02, 0.3)]
    assert left_some(Known([1], [0.4], 0.3), two_leaving) is None  # one known
    assert left_some(Known([], [], np.inf), [(9, 0.45, 0.3)]) is None  # none stored
    # a leaving page above every other keeps its place while a page of the pool is left ...
    got = left_some(Known([2], [0.3], 0.1), [(9, 0.45, 0.3)])
    assert got == Taken(0.45, [2], [0.3], [(9, 0.3)])
    # ... else it may be the last page with a partial sum: the index would cut nothing
    assert left_some(Known([], [], 0.3), [(9, 0.45, 0.3)]) is None
    assert left_some(Known([1], [0.4], 0.3), [(8, 0.0, 0.3)]) is None
