"""The site's TF-IDF model: vocabulary with document frequency and IDF, one L2-normalised row
per page (sublinear term frequency, terms in more than half of the pages dropped from the rows;
their document frequency is kept, see :meth:`TfidfModel.stems_in_share`).

It is built once per crawl (the ``site_models`` asset) and read back by every candidate shard,
which never refits it: :func:`model_frames` and :func:`model_from_frames` are the one mapping
to the ``site_terms`` and ``site_page_terms`` columns. A crawl that differs little from the one
the statistics were fitted on keeps them (:func:`transform_model`: the same vocabulary, document
frequencies and IDF, only the pages' rows computed): then an unchanged page keeps its row, and
a few edits do not move every weight of the site.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl
import pyarrow as pa
from numpy.typing import NDArray
from scipy import sparse

from linkpipe.lib.text.lexical import TOKEN_RE, stem
from linkpipe.lib.text.stopwords import STOPWORDS
from linkpipe.lib.text.term_counts import CountsJoiner, count_batch

MAX_DOC_SHARE = 0.5  # a term in more than this share of the pages says nothing about one


def analyse(text: str) -> list[str]:
    """The stems TF-IDF counts in ``text``: every word but stopwords, stemmed."""
    return [stem(m.group()) for m in TOKEN_RE.finditer(text) if m.group().lower() not in STOPWORDS]


@dataclass
class TfidfModel:
    """Vocabulary (term id -> stem), document frequency and IDF per term, and the page rows;
    ``common``: the stems left out of the rows (in more than :data:`MAX_DOC_SHARE` of the
    pages) with their document frequency; ``fit_pages``: the pages the statistics were counted
    on (those of this model's pages when 0: it was fitted on them)."""

    urls: list[str]
    terms: NDArray[np.object_]
    doc_freq: NDArray[np.int64]
    idf: NDArray[np.float64]
    matrix: sparse.csr_matrix  # pages x terms, rows of unit length
    common: dict[str, int] = field(default_factory=dict)
    fit_pages: int = 0
    row_of: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.row_of = {u: i for i, u in enumerate(self.urls)}
        self.fit_pages = self.fit_pages or len(self.urls)
        self.numeric = np.array([str(t)[:1].isdigit() for t in self.terms], dtype=bool)

    @functools.cached_property
    def column_of(self) -> dict[str, int]:
        """Each weighed stem's column of :attr:`matrix`."""
        return {str(t): i for i, t in enumerate(self.terms)}

    def top_terms(self, row: int, limit: int = 30) -> dict[str, float]:
        """The ``limit`` highest-weighted stems of a page (numbers left out), weights scaled to
        max 1; between equal weights the later term id first."""
        lo, hi = self.matrix.indptr[row], self.matrix.indptr[row + 1]
        cols, vals = self.matrix.indices[lo:hi], self.matrix.data[lo:hi]
        keep = ~self.numeric[cols]
        cols, vals = cols[keep], vals[keep]
        order = np.lexsort((cols, vals))[::-1][:limit]
        if not len(order):
            return {}
        names = self.terms[cols[order]].tolist()
        weights = (vals[order] / vals[order[0]]).tolist()  # as one by one: the same floats
        return {str(t): w for t, w in zip(names, weights, strict=True)}

    def stems_in_share(self, share: float, min_pages: int = 1) -> frozenset[str]:
        """The stems used by at least ``share`` of the pages, weighed or not; none on a site
        of fewer than ``min_pages`` pages."""
        pages = self.fit_pages  # doc_freq counts the pages of the fit
        if pages < max(1, min_pages):
            return frozenset()
        floor = share * pages
        found = {str(t) for t, df in zip(self.terms, self.doc_freq, strict=True) if df >= floor}
        return frozenset(found | {t for t, df in self.common.items() if df >= floor})


def fit_model(documents: Iterable[tuple[str, list[str]]]) -> TfidfModel:
    """Fit over (url, stems) of every page (stems as :func:`analyse` gives them), read once: a
    generator keeps one page in memory at a time."""
    joiner = CountsJoiner()
    joiner.add(count_batch(documents))
    return fit_counts(joiner)


def fit_counts(joiner: CountsJoiner) -> TfidfModel:
    """Fit over the pages' joined term counts (:mod:`~linkpipe.lib.text.term_counts`). When
    every term is in more than half of the pages (tiny sites), every term is kept."""
    urls = joiner.urls
    vocabulary, counts = joiner.matrix()
    if not len(vocabulary):  # no page has a word
        return _empty_model(urls)
    n_docs = counts.shape[0]
    doc_freq = np.bincount(counts.indices, minlength=counts.shape[1])
    keep = doc_freq <= MAX_DOC_SHARE * n_docs
    if not keep.any():
        keep[:] = True
    common = {str(vocabulary[i]): int(doc_freq[i]) for i in np.flatnonzero(~keep)}
    counts = counts[:, np.flatnonzero(keep)]
    idf = smoothed_idf(doc_freq[keep], n_docs)
    return TfidfModel(urls, vocabulary[keep], doc_freq[keep], idf, weigh(counts, idf), common)


def smoothed_idf(doc_freq: NDArray[np.int64], n_docs: int) -> NDArray[np.float64]:
    """Each term's IDF, ln((1 + pages) / (1 + its pages)) + 1, computed step by step as
    scikit-learn's ``TfidfTransformer`` computes it (the same values to the last bit; its
    import alone cost ~1 CPU-s in every process that loaded the pipeline)."""
    df = doc_freq.astype(np.float64) + 1.0
    idf = np.full_like(df, n_docs + 1, dtype=np.float64)
    idf /= df
    np.log(idf, out=idf)
    idf += 1.0
    return idf


def weigh(counts: sparse.csr_matrix, idf: NDArray[np.float64]) -> sparse.csr_matrix:
    """Pages x terms of (1 + ln count) x IDF, each row of unit length: what scikit-learn's
    ``TfidfTransformer(sublinear_tf=True)`` gives, in its order of operations (a row's
    squares summed one after another, as its L2 normaliser and SciPy's CSR product do). The
    result shares ``counts``' index arrays (its callers drop the counts: no copy at 1M pages)."""
    data = counts.data.astype(np.float64)
    np.log(data, out=data)
    data += 1.0
    data *= idf[counts.indices]
    n_rows = counts.shape[0]
    squares = sparse.csr_matrix(
        (data * data, np.zeros(len(data), np.int32), counts.indptr), shape=(n_rows, 1)
    )
    sums = np.asarray(squares @ np.ones(1), dtype=np.float64)
    norms = np.where(sums == 0.0, 1.0, np.sqrt(sums))
    data /= np.repeat(norms, np.diff(counts.indptr))
    return sparse.csr_matrix((data, counts.indices, counts.indptr), shape=counts.shape)


def transform_model(documents: Iterable[tuple[str, list[str]]], fitted: TfidfModel) -> TfidfModel:
    """The rows of (url, stems) documents under ``fitted``'s statistics (see
    :func:`transform_counts`)."""
    joiner = CountsJoiner([str(t) for t in fitted.terms])
    joiner.add(count_batch(documents))
    return transform_counts(joiner, fitted)


def transform_counts(joiner: CountsJoiner, fitted: TfidfModel) -> TfidfModel:
    """The rows of the pages' joined term counts (a joiner over ``fitted``'s vocabulary) under
    ``fitted``'s statistics, not refitted: its vocabulary, document frequencies, IDF and
    left-out stems (a stem it does not weigh is not counted). A document equal to one
    ``fitted`` was fitted on gets the same row."""
    urls = joiner.urls
    if not len(fitted.terms):
        return replace(_empty_model(urls), common=fitted.common, fit_pages=fitted.fit_pages)
    _, counts = joiner.matrix()
    matrix = weigh(counts, fitted.idf)
    return TfidfModel(
        urls, fitted.terms, fitted.doc_freq, fitted.idf, matrix, fitted.common, fitted.fit_pages
    )


def merge_rows(kept: TfidfModel, fresh: TfidfModel, urls: Sequence[str]) -> TfidfModel:
    """The model of ``urls`` (in that order) under ``kept``'s statistics: ``fresh``'s row of a
    URL it has (see :func:`transform_model` with ``kept``), else ``kept``'s."""
    stacked = sparse.vstack([kept.matrix, fresh.matrix], format="csr")
    offset = len(kept.urls)
    rows = [offset + fresh.row_of[u] if u in fresh.row_of else kept.row_of[u] for u in urls]
    matrix = stacked[rows].tocsr() if rows else sparse.csr_matrix((0, len(kept.terms)))
    matrix.sort_indices()
    return TfidfModel(
        list(urls), kept.terms, kept.doc_freq, kept.idf, matrix, kept.common, kept.fit_pages
    )


def _empty_model(urls: Sequence[str]) -> TfidfModel:
    empty = sparse.csr_matrix((len(urls), 0), dtype=np.float64)
    return TfidfModel(
        list(urls), np.array([], dtype=object), np.zeros(0, np.int64), np.zeros(0), empty
    )


def row_cosines(matrix: sparse.csr_matrix, row: int, others: Sequence[int]) -> np.ndarray:
    """Cosine similarity of TF-IDF row ``row`` with each of the rows ``others`` (rows are unit
    length): one row selection and one sparse product against the row made dense, not a
    product matrix per pair (each sum runs over the other row's terms in term order, as an
    element-wise product's would: the terms the row lacks add exact zeros)."""
    if not len(others):
        return np.zeros(0)
    dense = np.zeros(matrix.shape[1], dtype=matrix.dtype)
    lo, hi = matrix.indptr[row], matrix.indptr[row + 1]
    dense[matrix.indices[lo:hi]] = matrix.data[lo:hi]
    return np.asarray(matrix[list(others)] @ dense, dtype=np.float64).ravel()


def model_frames(
    model: TfidfModel, urls: Sequence[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(``site_terms`` rows: term id, stem, document frequency, IDF; ``site_page_terms`` rows:
    one per page (of ``urls`` only, when given), its term ids and weights by weight, highest
    first). The stems left out of the rows (``common``) follow the weighed terms, in stem
    order, with no IDF (NULL)."""
    common = sorted(model.common)
    doc_freq = np.concatenate([model.doc_freq, [model.common[t] for t in common]])
    terms = pl.DataFrame(
        {
            "term_id": np.arange(len(model.terms) + len(common), dtype=np.int32),
            "term": pl.Series([str(t) for t in model.terms] + common, dtype=pl.String),
            "doc_freq": doc_freq.astype(np.int32),
            "idf": pl.Series([*model.idf.tolist(), *[None] * len(common)], dtype=pl.Float64),
        }
    )
    m, page_urls = model.matrix, list(model.urls)
    if urls is not None:
        m, page_urls = m[[model.row_of[u] for u in urls]], list(urls)
    row_ids = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
    order = np.lexsort((-m.indices.astype(np.int64), -m.data, row_ids))
    offsets = pa.array(m.indptr.astype(np.int32))
    rows = pl.DataFrame(
        {
            "url": pl.Series(page_urls, dtype=pl.String),
            "term_ids": pl.from_arrow(
                pa.ListArray.from_arrays(offsets, pa.array(m.indices[order].astype(np.int32)))
            ),
            "weights": pl.from_arrow(
                pa.ListArray.from_arrays(offsets, pa.array(m.data[order].astype(np.float64)))
            ),
        }
    )
    return terms, rows


def statistics_from_frame(terms: pl.DataFrame, fit_pages: int) -> TfidfModel:
    """The statistics of a stored model (its ``site_terms`` rows, ordered by term id) without
    page rows: what :func:`transform_model` keeps; ``fit_pages``: the pages they counted."""
    rows = pl.DataFrame(
        schema=[
            ("url", pl.String),
            ("term_ids", pl.List(pl.Int32)),
            ("weights", pl.List(pl.Float64)),
        ]
    )
    return model_from_frames(terms, rows, fit_pages)


def model_from_frames(terms: pl.DataFrame, rows: pl.DataFrame, fit_pages: int = 0) -> TfidfModel:
    """The model written by :func:`model_frames` (``terms`` ordered by term id; ``fit_pages``:
    the pages its statistics were counted on, 0 for ``rows``' pages)."""
    width = terms.filter(pl.col("idf").is_not_null()).height
    matrix = rows_matrix(rows, width)
    matrix.sort_indices()
    return model_from_rows(terms, rows["url"].to_list(), matrix, fit_pages)


def rows_matrix(rows: pl.DataFrame, width: int) -> sparse.csr_matrix:
    """The page rows of a ``term_ids, weights`` frame (``site_page_terms``) as a matrix of
    ``width`` columns, one row each (empty for a null row)."""
    lengths = rows["term_ids"].list.len().fill_null(0).to_numpy().astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    indices = rows["term_ids"].explode().drop_nulls().to_numpy().astype(np.int32)
    data = rows["weights"].explode().drop_nulls().to_numpy().astype(np.float64)
    return sparse.csr_matrix((data, indices, indptr), shape=(rows.height, width))


def model_from_rows(
    terms: pl.DataFrame, urls: list[str], matrix: sparse.csr_matrix, fit_pages: int = 0
) -> TfidfModel:
    """The model of stored statistics (``terms`` as in :func:`model_from_frames`) and page
    rows already in a matrix (column-sorted; memory-mapped arrays are used as they are)."""
    left_out = terms.filter(pl.col("idf").is_null())
    common = dict(zip(left_out["term"].to_list(), left_out["doc_freq"].to_list(), strict=True))
    terms = terms.filter(pl.col("idf").is_not_null())
    return TfidfModel(
        urls,
        np.array(terms["term"].to_list(), dtype=object),
        terms["doc_freq"].to_numpy().astype(np.int64),
        terms["idf"].to_numpy().astype(np.float64),
        matrix,
        {str(t): int(df) for t, df in common.items()},
        fit_pages,
    )
