"""Which pages may hold a name key, read off the pages' TF-IDF rows instead of their texts.

A page's TF-IDF row (:mod:`~linkpipe.lib.text.tfidf`: title, H1 and main text) weighs every
stem of its words that is in the vocabulary, stopwords left out. A page whose main text
(as far as TF-IDF reads it) holds a name key therefore weighs each of the key's stems that is
in the vocabulary and is no stopword's stem (a *sure* stem): the pages that weigh every sure
stem of a key are a superset of those that hold it, found by a lookup of a few sparse columns
rather than by tokenising every page. A key without a sure stem may be anywhere.

A stem the statistics never saw (not weighed, not left out as common, no stopword's) is on
no page they were fitted on: only the pages whose text changed since the fit can hold a key
that has one (:func:`has_unseen_stem`).

Used when a crawl's site names change (a page came, a title changed): only the pages that may
hold a new name are read again (:func:`~linkpipe.lib.links.site_models.update_site_models`,
:class:`~linkpipe.lib.links.source_gate.SourceGate`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from linkpipe.lib.text.lexical import stem
from linkpipe.lib.text.mentions import Key
from linkpipe.lib.text.stopwords import STOPWORDS
from linkpipe.lib.text.tfidf import TfidfModel


@functools.cache
def stopword_stems() -> frozenset[str]:
    """The stems of the stopwords (a page's row never weighs them, whatever word gave them)."""
    return frozenset(stem(w) for w in STOPWORDS)


def sure_columns(key: Key, column_of: Mapping[str, int]) -> list[int]:
    """The columns of the key's sure stems (see the module)."""
    stops = stopword_stems()
    return sorted({column_of[s] for s in key if s in column_of and s not in stops})


def rows_with_keys(
    matrix: sparse.csr_matrix, column_of: Mapping[str, int], keys: Iterable[Key]
) -> NDArray[np.int64] | None:
    """The rows of ``matrix`` (pages x terms, TF-IDF) that weigh every sure stem of one of
    ``keys`` at least, ascending: every page that may hold one of them; None when a key has no
    sure stem (every page may)."""
    wanted = [sure_columns(key, column_of) for key in keys]
    if any(not cols for cols in wanted):
        return None
    used = sorted({c for cols in wanted for c in cols})
    if not used:
        return np.zeros(0, np.int64)
    place = {c: i for i, c in enumerate(used)}
    columns = sparse.csc_matrix(matrix[:, used])  # one pass over the rows for every key
    found: list[NDArray[np.int32]] = []
    for cols in wanted:
        rows = _rows_of(columns, place[cols[0]])
        for c in cols[1:]:
            rows = np.intersect1d(rows, _rows_of(columns, place[c]), assume_unique=True)
        found.append(rows)
    return np.unique(np.concatenate(found)).astype(np.int64)


def _rows_of(columns: sparse.csc_matrix, i: int) -> NDArray[np.int32]:
    """The rows with a weight in column ``i``, ascending."""
    rows: NDArray[np.int32] = np.sort(columns.indices[columns.indptr[i] : columns.indptr[i + 1]])
    return rows


def has_unseen_stem(key: Key, column_of: Mapping[str, int], common: Mapping[str, int]) -> bool:
    """Whether one of the key's stems is on no page the statistics were fitted on: not
    weighed, not left out as common, no stopword's stem."""
    stops = stopword_stems()
    return any(s not in column_of and s not in common and s not in stops for s in key)


def pages_holding(
    model: TfidfModel, keys: Iterable[Key], since_fit: Callable[[], set[str]] | None
) -> set[str] | None:
    """The pages of ``model``'s rows that may hold one of ``keys``: those weighing every sure
    stem of a key, and for a key without one but with a stem the statistics never saw, the
    pages ``since_fit`` gives (those whose text changed since the fit, or new since); None
    when a key has neither (any page may hold it) or ``since_fit`` is needed and None."""
    column_of = model.column_of
    sure: list[Key] = []
    unseen: list[Key] = []
    for key in keys:
        (sure if sure_columns(key, column_of) else unseen).append(key)
    if unseen and since_fit is None:
        return None
    if not all(has_unseen_stem(k, column_of, model.common) for k in unseen):
        return None
    rows = rows_with_keys(model.matrix, column_of, sure)
    found = {model.urls[r] for r in rows.tolist()} if rows is not None else set()
    if unseen and since_fit is not None:
        found |= since_fit() & model.row_of.keys()
    return found
