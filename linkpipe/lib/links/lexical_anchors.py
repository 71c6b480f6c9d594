"""Lexical placement: a pair's anchor on the target's names, else on the best 2-6 word window
of a source sentence by the target's TF-IDF term weights (without word vectors; the semantic
placement is :mod:`~linkpipe.lib.links.semantic_anchors`). The types and the name placement
it builds on are in :mod:`~linkpipe.lib.links.anchors`."""

from __future__ import annotations

from linkpipe.lib.links.anchors import (
    PUNCT_RE,
    STOP_STEMS,
    AnchorChoice,
    SourceText,
    TargetProfile,
    non_overlapping,
    only_ubiquitous,
    overlaps_link,
    sentence_token_ranges,
    token_choice,
)
from linkpipe.lib.links.name_anchors import sorted_names
from linkpipe.lib.text.lexical import is_generic_anchor


def best_windows(
    src: SourceText,
    target: TargetProfile,
    max_words: int = 6,
    limit: int = 3,
    ubiquitous: frozenset[str] = frozenset(),
) -> list[AnchorChoice]:
    """The best 2-``max_words`` word windows by the target's term weights, best first; never
    one of only ``ubiquitous`` words (see :data:`UBIQUITOUS_DOC_SHARE`)."""
    stems = [t[0] for t in src.tokens]
    scored: list[tuple[float, AnchorChoice]] = []
    for sent in sentence_token_ranges(src):
        _, _, _, lo, hi = sent
        sentence_weight = sum(target.terms.get(s, 0.0) for s in set(stems[lo:hi]))
        for i in range(lo, hi):
            if stems[i] in STOP_STEMS:
                continue
            if target.terms.get(stems[i], 0.0) <= 0:
                continue  # windows start and end on a word the target is about
            for j in range(i + 2, min(hi, i + max_words) + 1):
                if target.terms.get(stems[j - 1], 0.0) <= 0:
                    continue
                start, end = src.tokens[i][1], src.tokens[j - 1][2]
                if PUNCT_RE.search(src.text, start, end):
                    break  # never across a comma, colon or bracket
                window = stems[i:j]
                matched = [target.terms.get(s, 0.0) for s in set(window)]
                matched = [w for w in matched if w > 0]
                if len(matched) < 2 and max(matched) < 0.6:
                    continue
                content = sum(1 for s in set(window) if s not in STOP_STEMS)
                quality = min(1.0, sum(matched) / 1.5) * (len(matched) / content) ** 0.5
                score = quality + 0.03 * len(matched) + 0.05 * min(sentence_weight, 4.0)
                choice = token_choice(src, sent, i, j, "phrase", round(quality, 4))
                if (
                    not overlaps_link(src, choice.start, choice.end)
                    and not is_generic_anchor(choice.anchor_text)
                    and not only_ubiquitous(src, i, j, ubiquitous)
                    and src.well_formed(choice.start, choice.end, sent[1], sent[2])
                ):
                    scored.append((score, choice))
    scored.sort(key=lambda t: (-t[0], t[1].start))
    return non_overlapping((choice for _, choice in scored), limit)


def place_anchor(
    src: SourceText,
    target: TargetProfile,
    min_quality: float = 0.45,
    limit: int = 3,
    ubiquitous: frozenset[str] = frozenset(),
) -> list[AnchorChoice]:
    """Anchor choices for one (source, target) pair, best first; empty when none fits
    (``ubiquitous``: the site's ubiquitous stems, see :func:`best_windows`)."""
    exact = sorted_names(src, target)
    found = best_windows(src, target, limit=limit, ubiquitous=ubiquitous)
    windows = [w for w in found if w.quality >= min_quality]
    return non_overlapping(exact + windows, limit)
