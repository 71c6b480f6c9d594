"""Token windows that may become anchors: 2 to 6 words of one linkable sentence, on content
words at both edges, never across punctuation or an existing link (see
:func:`candidate_windows`); :mod:`semantic_anchors` scores them against targets."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np

from linkpipe.lib.links.anchors import PUNCT_RE, SentenceRange, SourceText, sentence_token_ranges

EDGE_STOPWORDS = frozenset(
    "often means mean makes make gets get uses use also accordingly usually always never "
    "sometimes really still even only just like much many every each several various "
    "something anything everything thing things way ways lot lots".split()
)
Window = tuple[int, int, int, int, int]  # (tok_i, tok_j, paragraph, sent_start, sent_end)


@dataclass(frozen=True, eq=False)  # arrays: compared as sequences (list(...)), not fields
class Windows(Sequence[Window]):
    """A source's candidate windows as arrays: each window's first token, the token after its
    last and its sentence (a number of ``ranges``); a :data:`Window` is made only for those
    read (a source has thousands, placement reads a few per target)."""

    first: np.ndarray  # (n,) int64
    end: np.ndarray  # (n,) int64
    sentence: np.ndarray  # (n,) int64: the window's sentence, a row of ``ranges``
    ranges: list[SentenceRange]

    def __len__(self) -> int:
        return len(self.first)

    @overload
    def __getitem__(self, idx: int) -> Window: ...

    @overload
    def __getitem__(self, idx: slice) -> list[Window]: ...

    def __getitem__(self, idx: int | slice) -> Window | list[Window]:
        if isinstance(idx, slice):
            return [self[i] for i in range(*idx.indices(len(self)))]
        paragraph, start, end = self.ranges[int(self.sentence[idx])][:3]
        return int(self.first[idx]), int(self.end[idx]), paragraph, start, end

    def __iter__(self) -> Iterator[Window]:
        return (self[i] for i in range(len(self)))


def no_windows(ranges: list[SentenceRange]) -> Windows:
    """An empty :class:`Windows`."""
    empty = np.zeros(0, np.int64)
    return Windows(empty, empty, empty, ranges)


def content_word(src: SourceText, i: int) -> str | None:
    """The lower-cased surface word of token ``i`` when it can carry meaning, else None."""
    return src.content_words[i]


def _edge(word: str | None, last: bool) -> bool:
    """Whether a token may start (or, with ``last``, end) an anchor: a content word that is
    not a filler verb or adverb ("often", "means"), and no -ly adverb at the end."""
    if word is None or word in EDGE_STOPWORDS:
        return False
    return not (last and word.endswith("ly") and len(word) > 4)


def edge_word(src: SourceText, i: int, last: bool) -> bool:
    """Whether token ``i`` may start (or, with ``last``, end) an anchor (see :func:`_edge`)."""
    return _edge(content_word(src, i), last)


def _link_limits(src: SourceText) -> np.ndarray:
    """For each token, the first character from which a window starting there would overlap an
    existing link: the least start of the links that end after the token starts."""
    starts = np.array([t[1] for t in src.tokens], dtype=np.float64)
    if not src.link_spans:
        return np.full(len(starts), np.inf)
    spans = sorted(src.link_spans, key=lambda span: span[1])
    ends = np.array([e for _, e in spans], dtype=np.float64)
    least_start = np.minimum.accumulate(np.array([s for s, _ in spans] + [np.inf])[::-1])[::-1]
    return least_start[np.searchsorted(ends, starts, side="right")]


def candidate_windows(src: SourceText, max_words: int = 6) -> Windows:
    """Token windows that may become anchors: 2 to ``max_words`` words of one linkable
    sentence, on content words at both edges, never across punctuation or an existing link;
    in the order of their sentences, then of their first and last tokens. Found for every
    length at once over arrays of the source's tokens (a source has thousands)."""
    ranges = sentence_token_ranges(src)
    if not ranges:
        return no_windows(ranges)
    first, last = _edges(src)
    broken = np.cumsum(_breaks(src))  # breaks[j]: punctuation between tokens j - 1 and j
    ends = np.array([t[2] for t in src.tokens], dtype=np.float64)
    limits = _link_limits(src)
    number = np.full(len(ends), -1, dtype=np.int64)  # each token's linkable sentence
    stop = np.zeros(len(ends), dtype=np.int64)  # the token after its sentence
    for n, (_, _, _, lo, hi) in enumerate(ranges):
        number[lo:hi], stop[lo:hi] = n, hi
    starts = np.flatnonzero(first & (number >= 0))
    found: list[tuple[np.ndarray, np.ndarray]] = []
    for size in range(1, max_words):  # the last token is start + size
        i = starts[starts + size < stop[starts]]
        j = i + size
        ok = last[j] & (broken[j] == broken[i]) & (ends[j] <= limits[i])
        found.append((i[ok], j[ok]))
    i = np.concatenate([f[0] for f in found])
    j = np.concatenate([f[1] for f in found])
    order = np.lexsort((j, i, number[i]))
    i, j = i[order], j[order]
    return Windows(i, j + 1, number[i], ranges)


def _edges(src: SourceText) -> tuple[np.ndarray, np.ndarray]:
    """Whether each token may start, and end, an anchor (:func:`_edge`, once per word)."""
    verdicts = {w: (_edge(w, last=False), _edge(w, last=True)) for w in set(src.content_words)}
    pairs = [verdicts[w] for w in src.content_words]
    return np.array([p[0] for p in pairs], bool), np.array([p[1] for p in pairs], bool)


def _breaks(src: SourceText) -> np.ndarray:
    """For each token, whether punctuation (:data:`PUNCT_RE`) lies between it and the token
    before: searched in the gap and the token's first character, unless the gap is one space
    (most are; a space and a word character cannot match)."""
    tokens, text = src.tokens, src.text
    out = np.zeros(len(tokens), dtype=bool)
    for j in range(1, len(tokens)):
        gap_start, start = tokens[j - 1][2], tokens[j][1]
        if start - gap_start == 1 and text[gap_start] == " ":
            continue
        out[j] = PUNCT_RE.search(text, gap_start, start + 1) is not None
    return out
