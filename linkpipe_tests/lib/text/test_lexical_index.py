"""The lexical index: exact order where it finds the pages, recall against exact search."""

import numpy as np
import pytest
from scipy import sparse

from linkpipe.lib.text.lexical_index import (
    IndexSettings,
    LexicalIndex,
    exact_neighbours,
    heaviest,
    recall_at_k,
    sample_rows,
    tune_index,
)
from linkpipe.lib.text.tfidf import analyse, fit_model
from linkpipe_tests.lib.text.corpus import zipf_corpus


def _matrix(texts: list[str]):  # noqa: ANN202
    return fit_model((f"/p{i}", analyse(t)) for i, t in enumerate(texts)).matrix


def test_neighbours_in_cosine_order_with_the_page_itself_first() -> None:
    matrix = _matrix(
        [
            "paths strokes fill vector",
            "paths strokes vector",
            "paths brushes",
            "brushes dynamics pressure",
            "unrelated words only",
            "layers masks",
            "layers channels",
        ]
    )
    index = LexicalIndex(matrix)
    [found] = index.neighbours([0], k=10)
    assert list(found) == list(exact_neighbours(matrix, [0], k=10)[0])
    assert list(found) == [0, 1, 2]  # page 4 shares no word: never a neighbour
    sims = (matrix[found] @ matrix[0].T).toarray().ravel()
    assert sims[0] > 0.999 and sims[1] > sims[2] > 0


def test_each_row_gets_its_own_count_of_neighbours_whatever_is_asked_beside_it() -> None:
    matrix = _matrix(zipf_corpus(400, seed=3))
    index = LexicalIndex(matrix, IndexSettings(posting_cap=64, rerank=40, query_terms=16))
    rows, counts = [5, 17, 230, 399], [3, 60, 1, 12]  # 60: more than the rerank of 40
    together = index.neighbours(rows, counts, chunk=2)
    for row, count, found in zip(rows, counts, together, strict=True):
        [alone] = index.neighbours([row], count)
        assert found.tolist() == alone.tolist() and 0 < len(found) <= count
    assert len(together[1]) > 40  # a count beyond the rerank reranks that many
    with pytest.raises(ValueError, match="3 neighbour counts for 4 rows"):
        index.neighbours(rows, counts[:3])


def test_recall_at_10_on_a_generated_site_of_3000_pages() -> None:
    matrix = _matrix(zipf_corpus(3_000, seed=1))
    sample = sample_rows(matrix.shape[0], 300, seed=0)
    exact = exact_neighbours(matrix, sample, 11)
    assert recall_at_k(LexicalIndex(matrix), sample, 10, exact) >= 0.95
    # the measure is not trivially 1: with 8 pages per term the index misses neighbours
    starved = LexicalIndex(matrix, IndexSettings(posting_cap=8, rerank=20, query_terms=8))
    assert recall_at_k(starved, sample, 10, exact) < 0.5


def test_an_index_below_its_recall_target_is_widened() -> None:
    matrix = _matrix(zipf_corpus(2_000, seed=6))
    sample = sample_rows(matrix.shape[0], 200, seed=1)
    start = IndexSettings(posting_cap=16, rerank=25, query_terms=32)
    index, recall = tune_index(LexicalIndex(matrix, start), sample, k=10, target=0.95)
    assert recall >= 0.95
    assert index.settings.posting_cap > 16 and index.settings.rerank > 25
    widenings = index.settings.rerank // 25
    assert index.settings.posting_cap // 16 == widenings**2  # widened together
    assert recall == recall_at_k(index, sample, 10)
    # a target out of reach stops after three widenings; the query terms stop at 64
    capped, _ = tune_index(LexicalIndex(matrix, start), sample, k=10, target=1.1)
    assert capped.settings == IndexSettings(posting_cap=1024, rerank=200, query_terms=64)


def test_a_site_of_two_large_sections_is_widened_in_query_terms_too() -> None:
    # 1,500 pages a section: a page's heaviest 32 terms are rare words, its neighbours share
    # the section's mid-weight words, so longer champion lists and reranks alone miss them
    matrix = _matrix(zipf_corpus(3_000, seed=3, n_topics=2))
    sample = sample_rows(matrix.shape[0], 200, seed=0)
    exact = exact_neighbours(matrix, sample, 11)
    assert recall_at_k(LexicalIndex(matrix), sample, 10, exact) < 0.6
    only_longer = IndexSettings(posting_cap=4_096, rerank=2_000, query_terms=32)
    assert recall_at_k(LexicalIndex(matrix, only_longer), sample, 10, exact) < 0.9
    index, recall = tune_index(LexicalIndex(matrix), sample, k=10, target=0.95)
    assert index.settings == IndexSettings(posting_cap=8_192, rerank=1_000, query_terms=64)
    assert recall >= 0.95


def test_a_query_touches_at_most_its_terms_times_the_posting_cap() -> None:
    matrix = _matrix(zipf_corpus(2_000, seed=2))
    index = LexicalIndex(matrix, IndexSettings(posting_cap=32, query_terms=16))
    per_term = np.diff(index.postings.blocks.indptr)  # one block: a row a term
    assert index.postings.n_blocks == 1 and per_term.max() == 32  # common terms: 32 pages
    lookups = heaviest(matrix[[5]], 16)
    assert lookups.nnz == 16 and lookups.data.min() >= np.sort(matrix[5].data)[-16]
    assert index.postings.partial_sums(lookups).nnz <= 16 * 32
    # every posting is one of the heaviest weights of its term
    term = int(np.argmax(np.bincount(matrix.indices)))
    column = matrix[:, term].toarray().ravel()
    rows, weights = index.postings.term_rows(term)
    assert np.count_nonzero(column) > 32 and len(rows) == 32
    assert weights.min() >= np.sort(column)[-32]
    assert (column[rows] == weights).all()


def test_sample_rows_is_seeded_and_sorted() -> None:
    assert sample_rows(5, 10) == [0, 1, 2, 3, 4]
    picked = sample_rows(1_000, 20, seed=4)
    assert picked == sample_rows(1_000, 20, seed=4) == sorted(picked)
    assert len(set(picked)) == 20


def test_exact_neighbours_break_ties_by_row_and_keep_only_shared_terms() -> None:
    # rows 1-4 equal (same cosine with row 0), row 5 shares nothing with row 0
    rows = [[1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0]]  # fmt: skip
    matrix = sparse.csr_matrix(np.array(rows) / np.linalg.norm(rows, axis=1, keepdims=True))
    assert [list(n) for n in exact_neighbours(matrix, [0], 3)] == [[0, 1, 2]]
    assert [list(n) for n in exact_neighbours(matrix, [0], 9)] == [[0, 1, 2, 3, 4]]
    assert [list(n) for n in exact_neighbours(matrix, [5, 2], 2)] == [[5], [1, 2]]
