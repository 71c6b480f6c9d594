"""Term counts counted in batches and joined: the matrix scikit-learn's CountVectorizer gives."""

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from linkpipe.lib.text.term_counts import CountsJoiner, count_batch
from linkpipe.lib.text.tfidf import analyse
from linkpipe_tests.lib.text.corpus import zipf_corpus

DOCS = [(f"/p{i}", analyse(t)) for i, t in enumerate(zipf_corpus(120, seed=5))]


def _reference(docs, vocabulary=None):  # noqa: ANN001, ANN202
    vectorizer = CountVectorizer(analyzer=lambda d: d, vocabulary=vocabulary)
    counts = vectorizer.fit_transform([stems for _, stems in docs]).tocsr()
    counts.sort_indices()
    return list(vectorizer.get_feature_names_out()), counts


def test_batches_joined_equal_one_count_of_every_page() -> None:
    joiner = CountsJoiner()
    for first in (0, 50, 51, 100):  # uneven batches, one of a single page
        last = {0: 50, 50: 51, 51: 100, 100: 120}[first]
        joiner.add(count_batch(DOCS[first:last]))
    stems, counts = joiner.matrix()
    terms, reference = _reference(DOCS)
    assert joiner.urls == [u for u, _ in DOCS]
    assert list(stems) == terms == sorted(terms)
    assert counts.has_sorted_indices and (counts != reference).nnz == 0
    assert counts.dtype == np.int32
    # one page by hand: "w0x" counted as often as the text has it
    row = counts[7].toarray().ravel()
    assert row[terms.index("w0x")] == DOCS[7][1].count("w0x") > 0


def test_a_fixed_vocabulary_counts_only_its_stems_in_its_order() -> None:
    vocabulary = ["w5x", "w1x", "absent", "w0x"]
    joiner = CountsJoiner(vocabulary)
    joiner.add(count_batch(DOCS[:60]))
    joiner.add(count_batch(DOCS[60:]))
    stems, counts = joiner.matrix()
    _, reference = _reference(DOCS, {s: i for i, s in enumerate(vocabulary)})
    assert list(stems) == vocabulary
    assert (counts != reference).nnz == 0 and counts.shape == (120, 4)
    assert counts[:, 2].nnz == 0


def test_pages_without_words_keep_their_rows() -> None:
    joiner = CountsJoiner()
    joiner.add(count_batch([("/empty", []), ("/a", ["raster", "raster", "mask"]), ("/b", [])]))
    stems, counts = joiner.matrix()
    assert list(stems) == ["mask", "raster"]
    assert counts.toarray().tolist() == [[0, 0], [1, 2], [0, 0]]
    nothing = CountsJoiner()
    nothing.add(count_batch([("/x", [])]))
    assert nothing.matrix()[1].shape == (1, 0)
