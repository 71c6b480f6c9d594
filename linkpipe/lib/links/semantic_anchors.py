"""Semantic anchor placement: the words of the source that mean the target.

Keyword overlap cannot place "revisit older articles" for a guide titled "Historical
optimization". Every content word of a source gets a vector from the same model as the pages
(cached by text: a site's vocabulary is embedded once). Each candidate window of 2-6 words
(edges on content words, never across punctuation, a heading or an existing link) is the mean
of its word vectors, blended with the mean of its sentence; the window closest to the target's
page vector wins, with a small bonus for words the target's own text uses. Exact mentions of
the target's title or known anchors still come first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from linkpipe.lib.links.anchors import (
    PUNCT_RE,
    STOP_STEMS,
    AnchorChoice,
    SourceText,
    TargetProfile,
    exact_mentions,
    overlaps_link,
    sentence_token_ranges,
)
from linkpipe.lib.text.lexical import is_generic_anchor

EncodeFn = Callable[[Sequence[str]], np.ndarray]
WORD_OK_RE = re.compile(r"^[^\W\d_][\w'\-]*$", re.UNICODE)
EDGE_STOPWORDS = frozenset(
    "often means mean makes make gets get uses use also accordingly usually always never "
    "sometimes really still even only just like much many every each several various "
    "something anything everything thing things way ways lot lots".split()
)
SENTENCE_WEIGHT = 0.3  # share of the sentence's meaning in a window's vector
QUALITY_FLOOR, QUALITY_SPAN = 0.1, 0.3  # similarity mapped to quality 0 and 1


@dataclass
class WindowVectors:
    """Candidate anchor windows of one source and their unit vectors."""

    windows: list[tuple[int, int, int, int, int]]  # (tok_i, tok_j, paragraph, sent_s, sent_e)
    matrix: np.ndarray  # (n_windows, dim)


def content_word(src: SourceText, i: int) -> str | None:
    """The lower-cased surface word of token ``i`` when it can carry meaning, else None."""
    stem, start, end = src.tokens[i]
    word = src.text[start:end].lower()
    if stem in STOP_STEMS or not WORD_OK_RE.match(word) or len(word) < 3:
        return None
    return word


def edge_word(src: SourceText, i: int, last: bool) -> bool:
    """Whether token ``i`` may start (or, with ``last``, end) an anchor: a content word that is
    not a filler verb or adverb ("often", "means"), and no -ly adverb at the end."""
    word = content_word(src, i)
    if word is None or word in EDGE_STOPWORDS:
        return False
    return not (last and word.endswith("ly") and len(word) > 4)


def candidate_windows(src: SourceText, max_words: int = 6) -> list[tuple[int, int, int, int, int]]:
    """Token windows that may become anchors."""
    out = []
    for para, s, e, lo, hi in sentence_token_ranges(src):
        for i in range(lo, hi):
            if not edge_word(src, i, last=False):
                continue
            for j in range(i + 1, min(hi, i + max_words)):
                if PUNCT_RE.search(src.text, src.tokens[j - 1][2], src.tokens[j][1] + 1):
                    break
                if overlaps_link(src, src.tokens[i][1], src.tokens[j][2]):
                    break
                if edge_word(src, j, last=True):
                    out.append((i, j + 1, para, s, e))
    return out


def encode_sources(sources: dict[str, SourceText], encode: EncodeFn) -> dict[str, WindowVectors]:
    """Window vectors for many sources, embedding their distinct words in one call."""
    windows = {u: candidate_windows(s) for u, s in sources.items()}
    words = sorted(
        {w for u, s in sources.items() for i in range(len(s.tokens)) if (w := content_word(s, i))}
    )
    if not words:
        return {u: WindowVectors([], np.zeros((0, 1), np.float32)) for u in sources}
    vecs = dict(zip(words, encode(words), strict=True))
    dim = len(next(iter(vecs.values())))
    out = {}
    for url, src in sources.items():
        token_vecs = [vecs.get(content_word(src, i) or "") for i in range(len(src.tokens))]
        sent_means: dict[tuple[int, int], np.ndarray] = {}
        rows = []
        for i, j, _, s, e in windows[url]:
            if (s, e) not in sent_means:
                sent_means[(s, e)] = _unit(_sum_range(token_vecs, *_token_bounds(src, s, e), dim))
            mean = _unit(_sum_range(token_vecs, i, j, dim))
            rows.append(_unit((1 - SENTENCE_WEIGHT) * mean + SENTENCE_WEIGHT * sent_means[(s, e)]))
        matrix = np.stack(rows).astype(np.float32) if rows else np.zeros((0, dim), np.float32)
        out[url] = WindowVectors(windows[url], matrix)
    return out


def _token_bounds(src: SourceText, s: int, e: int) -> tuple[int, int]:
    """The token range of the characters ``s:e``."""
    idx = [k for k, t in enumerate(src.tokens) if s <= t[1] < e]
    return (idx[0], idx[-1] + 1) if idx else (0, 0)


def _sum_range(token_vecs: list[np.ndarray | None], i: int, j: int, dim: int) -> np.ndarray:
    """Sum of the vectors of tokens ``i:j`` (tokens without a vector count as zero)."""
    total = np.zeros(dim, np.float32)
    for v in token_vecs[i:j]:
        if v is not None:
            total += v
    return total


def _unit(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to length 1 (zero stays zero)."""
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def semantic_windows(
    src: SourceText,
    vecs: WindowVectors,
    target: TargetProfile,
    target_vec: np.ndarray,
    limit: int = 3,
) -> list[AnchorChoice]:
    """The best windows for ``target``, at most one per sentence, best first."""
    if not vecs.windows:
        return []
    lexical = np.array(
        [
            sum(target.terms.get(src.tokens[k][0], 0.0) > 0 for k in range(i, j))
            for i, j, *_ in vecs.windows
        ],
        dtype=np.float32,
    )
    sims = vecs.matrix @ target_vec
    scores = sims + 0.02 * np.minimum(lexical, 3)
    out: list[AnchorChoice] = []
    used_sentences: set[int] = set()
    for idx in np.argsort(-scores):
        i, j, para, s, e = vecs.windows[int(idx)]
        if s in used_sentences:
            continue
        start, end = src.tokens[i][1], src.tokens[j - 1][2]
        text = src.text[start:end]
        if is_generic_anchor(text):
            continue
        used_sentences.add(s)
        quality = round(float(np.clip((sims[idx] - QUALITY_FLOOR) / QUALITY_SPAN, 0, 1)), 4)
        out.append(AnchorChoice(text, start, end, src.text[s:e], s, para, "semantic", quality))
        if len(out) >= limit:
            break
    return out


def place_anchor_semantic(
    src: SourceText,
    vecs: WindowVectors,
    target: TargetProfile,
    target_vec: np.ndarray,
    min_quality: float = 0.25,
    limit: int = 3,
) -> list[AnchorChoice]:
    """Exact mentions first, then semantic windows; best first, non-overlapping."""
    exact = exact_mentions(src, target)
    exact.sort(key=lambda c: (-c.quality, -(c.end - c.start), c.start))
    windows = [
        w for w in semantic_windows(src, vecs, target, target_vec) if w.quality >= min_quality
    ]
    out: list[AnchorChoice] = []
    for choice in exact + windows:
        if all(choice.end <= c.start or choice.start >= c.end for c in out):
            out.append(choice)
    return out[:limit]
