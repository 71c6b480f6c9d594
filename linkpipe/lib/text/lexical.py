"""Lexical evidence: tokens, light stemming, TF-IDF similarity and phrase lookup tables."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from linkpipe.lib.text.stopwords import STOPWORDS

TOKEN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*|[^\W\d_]+", re.UNICODE)
GENERIC_ANCHORS = frozenset(
    """click here|here|read more|more|learn more|this page|this article|this post|this link|
    link|continue reading|see more|find out more|details|more info|more information|go|next|
    previous|home|page|website|source|this|that|it""".replace("\n", "").split("|")
)


def stem(word: str) -> str:
    """A light English stem: plural, -ing, -ed and final -e removed ("updating" = "update")."""
    w = word.lower().strip("'-")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif (
        w.endswith("sses")
        or len(w) > 4
        and (w.endswith(("ches", "shes")) or (w.endswith("es") and w[-3] in "sxz"))
    ):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def tokens_with_offsets(text: str) -> list[tuple[str, int, int]]:
    """(stem, start, end) for every word of ``text``."""
    return [(stem(m.group()), m.start(), m.end()) for m in TOKEN_RE.finditer(text)]


def phrase_key(text: str) -> tuple[str, ...]:
    """Normalised token tuple of a phrase, for exact phrase lookup."""
    return tuple(stem(m.group()) for m in TOKEN_RE.finditer(text))


def is_generic_anchor(text: str) -> bool:
    """True for anchors that say nothing about the target ("click here", "read more", ...)."""
    norm = " ".join(text.lower().split()).strip(" .,:;!?")
    return norm in GENERIC_ANCHORS or not any(stem(w) not in STOPWORDS for w in norm.split())


def _analyzer(text: str) -> list[str]:
    return [stem(m.group()) for m in TOKEN_RE.finditer(text) if m.group().lower() not in STOPWORDS]


def fit_tfidf(texts: Sequence[str]) -> tuple[TfidfVectorizer, sparse.csr_matrix]:
    """TF-IDF model over the site's page texts and the row-normalised document matrix."""
    vectorizer = TfidfVectorizer(analyzer=_analyzer, sublinear_tf=True, min_df=1, max_df=0.5)
    try:
        matrix = vectorizer.fit_transform(texts)
    except ValueError:  # every term pruned (tiny sites): keep all terms
        vectorizer = TfidfVectorizer(analyzer=_analyzer, sublinear_tf=True)
        matrix = vectorizer.fit_transform(texts)
    return vectorizer, matrix.tocsr()


def pair_cosines(matrix: sparse.csr_matrix, pairs: Iterable[tuple[int, int]]) -> np.ndarray:
    """Cosine similarity of TF-IDF rows for each (i, j) pair."""
    pairs = list(pairs)
    if not pairs:
        return np.zeros(0)
    a = matrix[[i for i, _ in pairs]]
    b = matrix[[j for _, j in pairs]]
    return np.asarray(a.multiply(b).sum(axis=1)).ravel()


def top_terms(
    vectorizer: TfidfVectorizer, row: sparse.csr_matrix, limit: int = 30
) -> dict[str, float]:
    """The ``limit`` highest-weighted stems of one TF-IDF row, weights scaled to max 1."""
    names = vectorizer.get_feature_names_out()
    coo = row.tocoo()
    pairs = [(v, c) for v, c in zip(coo.data, coo.col, strict=True) if not names[c][0].isdigit()]
    best = sorted(pairs, reverse=True)[:limit]
    if not best:
        return {}
    top = best[0][0]
    return {str(names[c]): float(v / top) for v, c in best}
