"""Long pages placed in parts, so that a page's anchors cost memory bounded by the part size,
not by the page's length.

A source of more than :data:`PART_WORDS` tokens is split into parts of whole sentences of about
that many tokens. Each part is a :class:`SourceText` of its own slice of the main text (its
sentences and link spans shifted), placed like a short page with only its own windows and word
vectors in memory; each target's choices of all parts are then merged (exact names first, then
by quality, earlier parts first on ties) and shifted back into the page's offsets. At 5,000
words a part holds about 20,000 windows: with 384-dimension vectors, some 30 MB of window
vectors and a few MB of parses, whatever the page's length up to the crawler's size cap.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import replace

from linkpipe.lib.links.anchors import WINDOW_KINDS, AnchorChoice, SourceText

PART_WORDS = 5_000  # tokens of a part of a long source


def is_long(src: SourceText) -> bool:
    """Whether the source is placed in parts."""
    return len(src.tokens) > PART_WORDS


def split_source(src: SourceText, part_words: int = PART_WORDS) -> list[tuple[int, SourceText]]:
    """(offset in the page, part) of each part of whole sentences; the source itself when it
    is not longer than ``part_words`` tokens."""
    return list(iter_parts(src, part_words))


def iter_parts(src: SourceText, part_words: int = PART_WORDS) -> Iterator[tuple[int, SourceText]]:
    """The parts of :func:`split_source` one at a time, so memory holds one part's tokens."""
    if len(src.tokens) <= part_words or not src.sentences:
        yield 0, src
        return
    starts = [t[1] for t in src.tokens]
    groups: list[list[tuple[int, int, int, str]]] = [[]]
    first_token = 0
    for sentence in sorted(src.sentences, key=lambda s: s[1]):
        token = bisect.bisect_left(starts, sentence[1])
        if groups[-1] and token - first_token >= part_words:
            groups.append([])
            first_token = token
        groups[-1].append(sentence)
    del starts
    for group in groups:
        yield _part(src, group)


def _part(
    src: SourceText, sentences: Sequence[tuple[int, int, int, str]]
) -> tuple[int, SourceText]:
    """The part of ``src`` that spans ``sentences``, with its offset in the page."""
    lo, hi = sentences[0][1], max(s[2] for s in sentences)
    shifted = [(p, s - lo, e - lo, kind) for p, s, e, kind in sentences]
    spans = [(s - lo, e - lo) for s, e in src.link_spans if lo <= s and e <= hi]
    return lo, SourceText(src.text[lo:hi], shifted, spans, judge=src.judge)


def merge_choices(
    per_part: Sequence[tuple[int, Sequence[AnchorChoice]]], limit: int = 3
) -> tuple[AnchorChoice, ...]:
    """The best ``limit`` choices of all parts, in page offsets: exact names first, then by
    quality; ties keep the page's order."""
    shifted = [
        replace(c, start=c.start + off, end=c.end + off, sentence_start=c.sentence_start + off)
        for off, choices in per_part
        for c in choices
    ]
    shifted.sort(key=lambda c: (c.source_kind in WINDOW_KINDS, -c.quality))
    return tuple(shifted[:limit])
