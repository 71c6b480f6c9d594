"""The postings' layout: pages grouped by heaviest term, blocks of positions, the same sums."""

import numpy as np
from scipy import sparse

from linkpipe.lib.text.lexical_index import IndexSettings, LexicalIndex, best_of, heaviest
from linkpipe.lib.text.postings import build_postings, heaviest_term
from linkpipe.lib.text.tfidf import analyse, fit_model
from linkpipe_tests.lib.text.corpus import zipf_corpus


def _matrix(n_pages: int, seed: int) -> sparse.csr_matrix:
    texts = zipf_corpus(n_pages, seed=seed)
    return fit_model((f"/p{i}", analyse(t)) for i, t in enumerate(texts)).matrix


def test_heaviest_term_is_each_rows_first_highest_column() -> None:
    matrix = sparse.csr_matrix(
        np.array([[0.1, 0.7, 0.7, 0.0], [0.0, 0.0, 0.0, 0.0], [0.2, 0.0, 0.1, 0.9]])
    )
    assert heaviest_term(matrix).tolist() == [1, 4, 3]  # a tie: the first; empty: n columns
    assert heaviest_term(sparse.csr_matrix((2, 3))).tolist() == [3, 3]


def test_pages_are_positioned_by_heaviest_term_and_blocked() -> None:
    matrix = _matrix(700, seed=3)
    champions = heaviest(matrix.T.tocsr(), 64)
    postings = build_postings(champions, matrix, block_pages=100)
    assert postings.n_blocks == 7 and postings.width == 100
    assert postings.blocks.shape == (7 * matrix.shape[1], 100)
    assert sorted(postings.rows.tolist()) == list(range(700))  # every page once
    top = heaviest_term(matrix)[postings.rows]
    assert (np.diff(top) >= 0).all()  # grouped by heaviest term, row order within a group
    same = np.diff(top) == 0
    assert (np.diff(postings.rows)[same] > 0).all()
    for term in (0, int(np.argmax(np.bincount(matrix.indices))), matrix.shape[1] - 1):
        lo, hi = champions.indptr[term], champions.indptr[term + 1]
        rows, weights = postings.term_rows(term)
        assert rows.tolist() == champions.indices[lo:hi].tolist()
        assert weights.tolist() == champions.data[lo:hi].tolist()


def test_partial_sums_over_blocks_equal_one_product_over_every_page() -> None:
    matrix = _matrix(900, seed=4)
    champions = heaviest(matrix.T.tocsr(), 128)
    lookups = heaviest(matrix[[3, 50, 411, 899]], 32)
    plain = (lookups @ champions).toarray()  # queries x pages, in row order
    for block_pages in (900, 256, 37):
        postings = build_postings(champions, matrix, block_pages)
        sums = postings.partial_sums(lookups).tocoo()  # queries x positions
        assert sums.nnz == np.count_nonzero(plain)
        by_row = np.zeros_like(plain)
        by_row[sums.row, postings.rows[sums.col]] = sums.data
        assert np.array_equal(by_row, plain)  # bit for bit: same terms, same order


def test_neighbours_do_not_depend_on_the_blocks() -> None:
    matrix = _matrix(1_500, seed=5)
    settings = IndexSettings(posting_cap=64, rerank=40, query_terms=16)  # many cut ties
    champions = heaviest(matrix.T.tocsr(), settings.posting_cap)
    rows = list(range(0, 1_500, 7))
    one = LexicalIndex(matrix, settings).neighbours(rows, 11)
    for block_pages in (200, 33):
        blocked = LexicalIndex(matrix, settings, build_postings(champions, matrix, block_pages))
        found = blocked.neighbours(rows, 11)
        assert all(np.array_equal(a, b) for a, b in zip(one, found, strict=True))


def test_best_of_breaks_ties_at_the_cut_by_row() -> None:
    rows = np.array([9, 4, 7, 1, 3], np.int32)  # places: positions in the index's order
    scores = np.array([0.5, 0.2, 0.2, 0.9, 0.2])
    assert sorted(best_of(rows, scores, 3).tolist()) == [1, 3, 9]
    shuffled = np.array([2, 0, 4, 1, 3])
    assert sorted(best_of(rows[shuffled], scores[shuffled], 3).tolist()) == [1, 3, 9]
    assert sorted(best_of(rows, scores, 9).tolist()) == [1, 3, 4, 7, 9]


def test_best_of_a_long_row_keeps_the_places_of_a_full_partition() -> None:
    """Rows longer than eight times ``keep`` are narrowed by a sample first: the places kept,
    ties at the cut included, are those of partitioning every score."""
    rng = np.random.default_rng(3)
    for n, keep in ((5_000, 250), (2_001, 250), (20_000, 41), (4_000, 500)):
        places = rng.permutation(3 * n)[:n].astype(np.int32)
        scores = np.round(rng.gamma(0.5, size=n), 2)  # skewed, with many ties
        cut = np.sort(scores)[::-1][keep - 1]
        expected = np.concatenate(
            [places[scores > cut], np.sort(places[scores == cut])[: keep - (scores > cut).sum()]]
        )
        got = best_of(places, scores, keep)
        assert len(got) == keep and np.array_equal(got, expected)
