"""The site TF-IDF model: what it keeps, its weights, and its round trip through tables."""

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from linkpipe.lib.text.tfidf import (
    analyse,
    fit_model,
    merge_rows,
    model_frames,
    model_from_frames,
    row_cosines,
    statistics_from_frame,
    transform_model,
)
from linkpipe_tests.lib.text.corpus import zipf_corpus

PAGES = {
    "/a": "Raster layers and raster masks in the layers dialog.",
    "/b": "Vector paths: stroke paths and fill paths.",
    "/c": "Masks hide parts of layers.",
    "/d": "Brushes paint on layers; 3 brushes ship with it.",
}


def _fit(pages: dict[str, str]):  # noqa: ANN202
    return fit_model((url, analyse(text)) for url, text in pages.items())


def test_vocabulary_document_frequency_and_weights() -> None:
    model = _fit(PAGES)
    assert model.urls == ["/a", "/b", "/c", "/d"]
    # "layer" is on 3 of 4 pages: more than half, dropped; stopwords never counted
    assert "layer" not in model.terms and "the" not in model.terms and "and" not in model.terms
    vocabulary = dict(zip(model.terms, model.doc_freq, strict=True))
    assert vocabulary["mask"] == 2 and vocabulary["path"] == 1 and vocabulary["3"] == 1
    assert list(model.terms) == sorted(model.terms)
    # smooth IDF: ln((1 + 4) / (1 + df)) + 1
    idf = dict(zip(model.terms, model.idf, strict=True))
    assert idf["mask"] == pytest.approx(np.log(5 / 3) + 1)
    # /b: "path" three times (1 + ln 3), "vector", "stroke", "fill" once, all df 1, unit length
    top = model.top_terms(model.row_of["/b"], limit=2)
    assert list(top) == ["path", "vector"]
    assert top["path"] == 1.0
    assert top["vector"] == pytest.approx(1 / (1 + np.log(3)))
    # numbers are never top terms
    assert "3" not in model.top_terms(model.row_of["/d"])
    assert np.allclose(np.asarray(model.matrix.multiply(model.matrix).sum(axis=1)).ravel(), 1)


def test_same_matrix_as_sklearn_tfidf_on_a_real_sized_corpus() -> None:
    texts = zipf_corpus(400, seed=3)
    model = _fit({f"/p{i}": t for i, t in enumerate(texts)})
    reference = TfidfVectorizer(analyzer=analyse, sublinear_tf=True, max_df=0.5)
    expected = reference.fit_transform(texts)
    assert list(model.terms) == list(reference.get_feature_names_out())
    assert abs(model.matrix - expected).max() < 1e-12


def test_a_tiny_site_keeps_every_term() -> None:
    model = _fit({"/a": "gimp layers", "/b": "gimp layers"})
    assert list(model.terms) == ["gimp", "layer"]
    assert list(model.doc_freq) == [2, 2]


def test_round_trip_through_tables_is_exact() -> None:
    model = _fit({f"/p{i}": t for i, t in enumerate(zipf_corpus(150, seed=5))})
    terms, rows = model_frames(model)
    assert terms.columns == ["term_id", "term", "doc_freq", "idf"]
    first = rows.row(0, named=True)
    assert first["url"] == "/p0"
    assert first["weights"] == sorted(first["weights"], reverse=True)  # heaviest first
    again = model_from_frames(terms, rows)
    assert again.urls == model.urls and list(again.terms) == list(model.terms)
    assert (again.matrix != model.matrix).nnz == 0
    assert np.array_equal(again.idf, model.idf)
    for row in (0, 17, 149):
        assert again.top_terms(row, 40) == model.top_terms(row, 40)
    assert np.array_equal(
        row_cosines(again.matrix, 3, [1, 9]), row_cosines(model.matrix, 3, [1, 9])
    )


def test_row_cosines_are_the_cosines_of_the_rows() -> None:
    model = _fit({f"/p{i}": t for i, t in enumerate(zipf_corpus(60, seed=3))})
    dense = model.matrix.toarray()
    others = [0, 5, 5, 59, 7]
    got = row_cosines(model.matrix, 5, others)
    assert got == pytest.approx(dense[others] @ dense[5], abs=1e-12)
    assert got[1] == pytest.approx(1.0) and got[1] == got[2]  # the row itself, twice
    apart = _fit({"/a": "layers masks brushes", "/b": "kernels drivers modules"})
    assert row_cosines(apart.matrix, 0, [1]).tolist() == [0.0]  # no term shared
    assert row_cosines(model.matrix, 5, []).shape == (0,)


def test_stems_of_more_than_half_the_pages_keep_their_document_frequency() -> None:
    model = _fit(PAGES)
    # "layer" (3 of 4 pages) is left out of the rows but its document frequency is kept
    assert model.common == {"layer": 3}
    assert "layer" not in model.terms
    # at least half of the pages: "layer" (3) and "mask" (2, weighed); "brush" (1) is not
    assert model.stems_in_share(0.5) == frozenset({"layer", "mask"})
    assert model.stems_in_share(0.75) == frozenset({"layer"})
    assert model.stems_in_share(0.5, min_pages=5) == frozenset()  # too few pages to tell
    terms, rows = model_frames(model)
    # the left-out stems follow the weighed terms, with no IDF
    assert terms.filter(terms["idf"].is_null()).rows() == [(len(model.terms), "layer", 3, None)]
    again = model_from_frames(terms, rows)
    assert again.common == {"layer": 3} and list(again.terms) == list(model.terms)
    assert again.matrix.shape == model.matrix.shape
    assert again.stems_in_share(0.5) == model.stems_in_share(0.5)


def test_kept_statistics_give_the_fit_s_rows_and_ignore_new_stems() -> None:
    model = _fit(PAGES)
    terms, _ = model_frames(model)
    statistics = statistics_from_frame(terms, len(PAGES))
    assert statistics.matrix.shape == (0, len(model.terms)) and statistics.fit_pages == 4
    again = transform_model(((u, analyse(t)) for u, t in PAGES.items()), statistics)
    assert (again.matrix != model.matrix).nnz == 0  # the very same rows, to the last bit
    assert list(again.terms) == list(model.terms) and again.common == model.common
    # a new page: its stems the fit never saw weigh nothing; the known ones keep their IDF
    new = transform_model([("/e", analyse("Quokka masks and quokka paths"))], statistics)
    row = new.top_terms(0)
    assert set(row) == {"mask", "path"}
    assert row["path"] == 1.0 and row["mask"] == pytest.approx(
        (np.log(5 / 3) + 1) / (np.log(5 / 2) + 1)
    )
    # the ubiquitous-stem rule counts the pages of the fit, not those of the new model
    assert new.stems_in_share(0.5) == model.stems_in_share(0.5) == {"layer", "mask"}
    # rows merged by URL: the fresh row where there is one, else the kept one
    merged = merge_rows(model, new, ["/a", "/e", "/c"])
    assert merged.urls == ["/a", "/e", "/c"]
    assert (merged.matrix[0] != model.matrix[model.row_of["/a"]]).nnz == 0
    assert (merged.matrix[1] != new.matrix[0]).nnz == 0
    assert (merged.matrix[2] != model.matrix[model.row_of["/c"]]).nnz == 0


def test_weights_and_idf_are_scikit_learns_to_the_last_bit() -> None:
    """linkpipe weighs counts itself (scikit-learn's import cost ~1 CPU-s in every process):
    sublinear TF x smoothed IDF, rows of unit length, equal bit for bit to its transformer's,
    empty rows and single pages included."""
    from scipy import sparse
    from sklearn.feature_extraction.text import TfidfTransformer

    from linkpipe.lib.text.tfidf import smoothed_idf, weigh

    rng = np.random.default_rng(0)
    for n_docs, n_terms in ((1, 5), (7, 3), (120, 80), (400, 250)):
        dense = rng.poisson(rng.uniform(0.05, 0.8), size=(n_docs, n_terms)).astype(np.int32)
        dense[rng.integers(0, n_docs, size=max(1, n_docs // 10))] = 0
        counts = sparse.csr_matrix(dense)
        reference = TfidfTransformer(sublinear_tf=True)
        expected = reference.fit_transform(counts).tocsr()
        idf = smoothed_idf(np.bincount(counts.indices, minlength=n_terms), n_docs)
        got = weigh(counts, idf)
        assert np.array_equal(idf, reference.idf_)
        assert np.array_equal(got.indptr, expected.indptr)
        assert np.array_equal(got.indices, expected.indices)
        assert np.array_equal(got.data, expected.data)
        assert np.allclose(np.asarray(got.multiply(got).sum(axis=1)).ravel()[dense.any(1)], 1.0)
