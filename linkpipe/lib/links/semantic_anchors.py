"""Semantic anchor placement: the words of the source that mean the target.

Keyword overlap cannot place "revisit older articles" for a guide titled "Historical
optimization". Every content word of a source gets a vector from the same model as the pages
(cached by text: a site's vocabulary is embedded once). Each candidate window of 2-6 words
(edges on content words, never across punctuation, a heading or an existing link: see
:mod:`~linkpipe.lib.links.windows`) is the mean of its word vectors, blended with the mean of
its sentence; the window closest to the target's page vector wins, with a small bonus for
words the target's own text uses. Only well-formed phrases are placed (see
:mod:`linkpipe.lib.text.phrases`): a window that is not gives way to the next best, in its
sentence or another, and so does a window made only of words the whole site uses
(:data:`~linkpipe.lib.links.anchors.UBIQUITOUS_DOC_SHARE`). Exact mentions of the target's
title or known anchors still come first.

Cost: a source's words are embedded once (cached) and its windows' vectors are computed once,
in batch with numpy; a (source, target) pair is one matrix-vector product over the windows and
a partial sort (a fraction of a millisecond), whatever the size of the site.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from linkpipe.lib.links.anchors import (
    AnchorChoice,
    SourceText,
    TargetProfile,
    non_overlapping,
    only_ubiquitous,
)
from linkpipe.lib.links.name_anchors import sorted_names
from linkpipe.lib.links.windows import Windows, candidate_windows
from linkpipe.lib.text.lexical import is_generic_anchor

EncodeFn = Callable[[Sequence[str]], np.ndarray]
SENTENCE_WEIGHT = 0.3  # share of the sentence's meaning in a window's vector
QUALITY_FLOOR, QUALITY_SPAN = 0.1, 0.3  # similarity mapped to quality 0 and 1
TERM_HITS_COUNTED = 3  # a window's score: its cosine + 0.02 per target term in it, up to 3


@dataclass
class WindowVectors:
    """Candidate anchor windows of one source, scored against any target without a window
    matrix. A window's vector is the unit of ``(1 - w) * unit(W) + w * unit(S)`` (``W`` the sum
    of its words' vectors, ``S`` its sentence's, ``w`` :data:`SENTENCE_WEIGHT`); its cosine
    with a unit target ``t`` follows from ``W . t`` (a difference of prefix sums of the
    words' ``v . t``), ``S . t`` and two per-window numbers computed once: ``|W|`` (from the
    dot products of words at most five apart) and the norm of the blend. A target costs one
    product of the source's word matrix, not of a matrix of every window."""

    windows: Windows
    words: np.ndarray  # (n_tokens, dim): each token's word vector (zero: none)
    sentences: np.ndarray  # (n_sentences, dim): each linkable sentence's unit vector
    sentence_of: np.ndarray  # (n_windows,): the row of each window's sentence
    norms: np.ndarray  # (n_windows,): |W|
    blend_norms: np.ndarray  # (n_windows,): the norm of the blend before its scaling

    def __post_init__(self) -> None:
        self.first, self.last = self.windows.first, self.windows.end
        self.generic: dict[int, bool] = {}  # window -> its words are generic, once looked at
        self.common: dict[int, bool] = {}  # window -> only the site's ubiquitous words, once
        self.formed: dict[int, bool] = {}  # window -> it is a well-formed phrase, once parsed
        self.target_sims: dict[str, np.ndarray] = {}  # target URL -> :meth:`sims`, once

    def sims_of(self, url: str, target: np.ndarray) -> np.ndarray:
        """:meth:`sims` of the page ``url`` whose unit vector is ``target``, computed once (a
        placement that waits for parses runs again in each round of :mod:`parse_rounds`)."""
        if url not in self.target_sims:
            self.target_sims[url] = self.sims(target)
        return self.target_sims[url]

    def sims(self, target: np.ndarray) -> np.ndarray:
        """The cosine of every window's vector with the unit vector ``target``."""
        if not self.windows:
            return np.zeros(0, np.float64)
        word_dots = _prefix(self.words @ target.astype(self.words.dtype))
        along = word_dots[self.last] - word_dots[self.first]  # W . t
        own = np.divide(along, self.norms, out=np.zeros_like(along), where=self.norms > 0)
        blend = (1 - SENTENCE_WEIGHT) * own
        blend += SENTENCE_WEIGHT * (self.sentences @ target)[self.sentence_of]
        sims: np.ndarray = np.divide(
            blend, self.blend_norms, out=np.zeros_like(blend), where=self.blend_norms > 0
        )
        return sims


def _prefix(values: np.ndarray) -> np.ndarray:
    """0 followed by the running sums of ``values``."""
    out = np.zeros(len(values) + 1, np.float64)
    np.cumsum(values, out=out[1:])
    return out


@dataclass
class TokenVectors:
    """Word vectors of many sources: one table of distinct words, each source's tokens as rows
    of it (row 0: no vector), so memory holds each word once."""

    table: np.ndarray
    rows: dict[str, np.ndarray]

    def of(self, url: str) -> np.ndarray | None:
        """One row per token of the source (zero for tokens without a vector), None if unknown."""
        rows = self.rows.get(url)
        return None if rows is None else self.table[rows]


def encode_sources(sources: dict[str, SourceText], encode: EncodeFn) -> TokenVectors:
    """The word vectors of many sources, embedding their distinct words in one call;
    :func:`window_vectors` makes a source's windows from them."""
    vocabulary = sorted({w for s in sources.values() for w in s.content_words if w})
    if not vocabulary:
        nothing = {u: np.zeros(len(s.tokens), np.int64) for u, s in sources.items()}
        return TokenVectors(np.zeros((1, 1), np.float32), nothing)
    vectors = np.asarray(encode(vocabulary), dtype=np.float32)
    row_of = {w: i + 1 for i, w in enumerate(vocabulary)}  # row 0: no vector
    table = np.vstack([np.zeros((1, vectors.shape[1]), np.float32), vectors])
    rows = {
        url: np.array([row_of.get(w or "", 0) for w in src.content_words], dtype=np.int64)
        for url, src in sources.items()
    }
    return TokenVectors(table, rows)


def window_vectors(src: SourceText, token_vecs: np.ndarray) -> WindowVectors:
    """The candidate windows of ``src`` ready to be scored against targets (see
    :class:`WindowVectors`; ``token_vecs``: one row per token, zero for tokens without a
    vector): each window's ``|W|``, its sentence and the norm of its blend, computed for all
    windows at once."""
    windows = candidate_windows(src)
    dim = token_vecs.shape[1]
    if not windows:
        empty = np.zeros(0, np.float64)
        return WindowVectors(
            windows, token_vecs, np.zeros((0, dim)), np.zeros(0, np.int64), empty, empty
        )
    words = token_vecs.astype(np.float64)
    first, last = windows.first, windows.end
    number: dict[tuple[int, int], int] = {}  # a sentence's row, once per distinct span
    row_of_range: list[int] = []
    sums: list[np.ndarray] = []
    token_sentence = np.zeros(len(words), np.int64)
    for _, s, e, lo, hi in windows.ranges:
        if (s, e) not in number:
            number[(s, e)] = len(sums)
            sums.append(words[lo:hi].sum(axis=0))
        token_sentence[lo:hi] = number[(s, e)]
        row_of_range.append(number[(s, e)])
    sentences = _unit_rows(np.stack(sums))
    sentence_of = np.array(row_of_range, dtype=np.int64)[windows.sentence]
    norms = np.sqrt(np.maximum(_window_squares(words, first, last), 0.0))
    # W . S from the words' dot products with their own sentence's unit vector
    with_sentence = _prefix(np.einsum("ij,ij->i", words, sentences[token_sentence]))
    along = with_sentence[last] - with_sentence[first]
    cosine = np.divide(along, norms, out=np.zeros_like(along), where=norms > 0)
    has_words = (norms > 0).astype(np.float64)
    has_sentence = (np.linalg.norm(sentences, axis=1) > 0).astype(np.float64)[sentence_of]
    a, b = 1 - SENTENCE_WEIGHT, SENTENCE_WEIGHT
    squared = a * a * has_words + b * b * has_sentence + 2 * a * b * cosine
    blend_norms = np.sqrt(np.maximum(squared, 0.0))
    return WindowVectors(windows, token_vecs, sentences, sentence_of, norms, blend_norms)


def _window_squares(words: np.ndarray, first: np.ndarray, last: np.ndarray) -> np.ndarray:
    """``|W|^2`` of each window ``first:last`` of ``words``: the sum of the dot products of
    every two of its words, from prefix sums of the dot products of words ``d`` apart."""
    width = int((last - first).max())
    total = np.zeros(len(first), np.float64)
    for d in range(width):
        dots = np.einsum("ij,ij->i", words[: len(words) - d], words[d:])
        sums = _prefix(dots)  # sums[k]: pairs (i, i + d) with i < k
        end = np.maximum(last - d, first)  # pairs inside the window start before last - d
        top = len(sums) - 1  # a window near the end may start past the last pair d apart
        pairs = sums[np.minimum(end, top)] - sums[np.minimum(first, top)]
        total += pairs if d == 0 else 2 * pairs
    return total


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row scaled to length 1 (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def term_hits(src: SourceText, targets: Sequence[TargetProfile], vecs: WindowVectors) -> np.ndarray:
    """For each window (rows) and target (columns), how many of the window's words the
    target's weighted terms contain: one pass over the source's tokens for all the targets."""
    code_of, codes = src.stem_codes
    is_term = np.zeros((len(code_of) + 1, len(targets)), dtype=np.int64)
    for column, target in enumerate(targets):
        for term, weight in target.terms.items():
            if weight > 0 and term in code_of:
                is_term[code_of[term], column] = 1
    counts = np.zeros((len(codes) + 1, len(targets)), dtype=np.int64)
    np.cumsum(is_term[codes], axis=0, out=counts[1:])
    hits: np.ndarray = (counts[vecs.last] - counts[vecs.first]).astype(np.float32)
    return hits


def _best_first(scores: np.ndarray, head: int = 64) -> Iterator[int]:
    """Indices of ``scores``, highest first: the best ``head`` sorted at once, the rest sorted
    only when a caller reads that far."""
    if len(scores) <= head:
        yield from np.argsort(-scores).tolist()
        return
    top = np.argpartition(-scores, head - 1)[:head]
    top = top[np.argsort(-scores[top])]
    yield from top.tolist()
    rest = np.setdiff1d(np.arange(len(scores)), top)
    yield from rest[np.argsort(-scores[rest])].tolist()


def _placeable(src: SourceText, vecs: WindowVectors, idx: int, ubiquitous: frozenset[str]) -> bool:
    """Whether window ``idx`` may be an anchor: not generic words, not only the site's
    ``ubiquitous`` stems, a well-formed phrase (each verdict cached on ``vecs``, the parse
    judged last)."""
    i, j, _, s, e = vecs.windows[idx]
    start, end = src.tokens[i][1], src.tokens[j - 1][2]
    if idx not in vecs.generic:
        vecs.generic[idx] = is_generic_anchor(src.text[start:end])
    if vecs.generic[idx]:
        return False
    if idx not in vecs.common:
        vecs.common[idx] = only_ubiquitous(src, i, j, ubiquitous)
    if vecs.common[idx]:
        return False
    if idx not in vecs.formed:
        vecs.formed[idx] = src.well_formed(start, end, s, e)
    return vecs.formed[idx]


def semantic_windows(
    src: SourceText,
    vecs: WindowVectors,
    target: TargetProfile,
    target_vec: np.ndarray,
    limit: int = 3,
    sims: np.ndarray | None = None,
    ubiquitous: frozenset[str] = frozenset(),
    min_quality: float = 0.0,
    hits: np.ndarray | None = None,
    taken: Sequence[AnchorChoice] = (),
) -> list[AnchorChoice]:
    """The best windows for ``target``, at most one per sentence and one per text (lower
    case; neither the text of a choice in ``taken`` nor overlapping one), best first
    (windows of generic words never, nor of only the site's ``ubiquitous`` stems: the same
    set for every call on ``vecs``). A text once: the alternatives are what the anchor ledger
    falls back on when it refuses a text already linking another target on the page, and it
    refuses a text wherever it stands. ``sims`` and ``hits``: the windows' cosines with the
    target and their :func:`term_hits` when the caller computed them for many targets at
    once. The search stops at the first window whose score is below what ``min_quality``
    needs: the windows are visited by score, a score is never below the window's cosine, so
    none from there on could reach ``min_quality`` (their sentences are not parsed for
    nothing)."""
    if not vecs.windows:
        return []
    if sims is None:
        sims = vecs.sims_of(target.url, target_vec)
    if hits is None:
        hits = term_hits(src, [target], vecs)[:, 0]
    scores = sims + 0.02 * np.minimum(hits, TERM_HITS_COUNTED)
    floor = QUALITY_FLOOR + QUALITY_SPAN * min_quality - 1e-3 if min_quality > 0 else -np.inf
    out: list[AnchorChoice] = []
    used_sentences: set[int] = set()
    used_texts = {c.anchor_text.lower() for c in taken}
    for idx in _best_first(scores):
        if scores[idx] < floor:
            break
        i, j, para, s, e = vecs.windows[idx]
        if s in used_sentences:
            continue
        start, end = src.tokens[i][1], src.tokens[j - 1][2]
        text = src.text[start:end]
        if text.lower() in used_texts or any(start < c.end and c.start < end for c in taken):
            continue
        if not _placeable(src, vecs, idx, ubiquitous):
            continue
        used_sentences.add(s)
        used_texts.add(text.lower())
        scaled = float((sims[idx] - QUALITY_FLOOR) / QUALITY_SPAN)  # in float32, as the vectors
        quality = round(min(1.0, max(0.0, scaled)), 4)
        out.append(AnchorChoice(text, start, end, src.text[s:e], s, para, "semantic", quality))
        if len(out) >= limit:
            break
    return out


MIN_QUALITY = 0.25  # the least quality of a window placed as an anchor


def place_anchor_semantic(
    src: SourceText,
    vecs: WindowVectors,
    target: TargetProfile,
    target_vec: np.ndarray,
    min_quality: float = MIN_QUALITY,
    limit: int = 3,
    sims: np.ndarray | None = None,
    ubiquitous: frozenset[str] = frozenset(),
    hits: np.ndarray | None = None,
) -> list[AnchorChoice]:
    """Exact mentions first, then semantic windows (never of only ``ubiquitous`` stems, nor
    the text of a mention or of a better window, nor overlapping a mention); best first,
    non-overlapping, at most ``limit`` (the first ``limit`` of a larger limit's).
    ``sims``, ``hits``: see :func:`semantic_windows`."""
    args = (min_quality, limit, sims, ubiquitous, hits)
    return semantic_placements(src, vecs, target, target_vec, *args)[0]


def semantic_placements(
    src: SourceText,
    vecs: WindowVectors,
    target: TargetProfile,
    target_vec: np.ndarray,
    min_quality: float,
    limit: int,
    sims: np.ndarray | None,
    ubiquitous: frozenset[str],
    hits: np.ndarray | None,
) -> tuple[list[AnchorChoice], bool]:
    """:func:`place_anchor_semantic`'s placements, and whether a larger ``limit`` could give
    more (the windows' search stopped at the limit, or the limit cut the list). Names come
    first: when they fill ``limit`` the windows are not searched (their sentences are not
    parsed) and more may follow (a larger limit searches them)."""
    exact = sorted_names(src, target)
    names = non_overlapping(exact, limit)
    if len(names) >= limit:
        return names, True
    semantic = semantic_windows(
        src, vecs, target, target_vec, limit=limit, sims=sims, ubiquitous=ubiquitous,
        min_quality=min_quality, hits=hits, taken=exact,
    )  # fmt: skip
    windows = [w for w in semantic if w.quality >= min_quality]
    every = non_overlapping(exact + windows)
    return every[:limit], len(semantic) >= limit or len(every) > limit
