"""A target's names in a source: where its title, H1, slug or known anchors occur verbatim
(modulo case and plural), looked up from the source's stem index so that a target costs
its names' occurrences, not the source's length; and the placements of a pair on those names
alone (see :mod:`~linkpipe.lib.links.anchors` for the source text, the target profile and the
rules every anchor follows)."""

from __future__ import annotations

from dataclasses import replace

from linkpipe.lib.links.anchors import (
    PHRASE_KIND_QUALITY,
    AnchorChoice,
    SentenceRange,
    SourceText,
    TargetProfile,
    non_overlapping,
    overlaps_link,
    token_choice,
)


def name_hits(src: SourceText, target: TargetProfile) -> list[tuple[int, int, int, str]]:
    """(sentence, token, -length, kind) of every place a target phrase occurs verbatim in the
    source's linkable sentences, links included; found once for a source and a target's name
    keys (:attr:`SourceText.name_hit_memo`; the list is shared: not to be changed)."""
    held = src.name_hit_memo.get(target.url)
    if held is not None and held[0] is target.keys:
        return held[1]
    hits = _name_hits(src, target)
    src.name_hit_memo[target.url] = (target.keys, hits)
    return hits


def _name_hits(src: SourceText, target: TargetProfile) -> list[tuple[int, int, int, str]]:
    """:func:`name_hits`, looked up from the source's stem index."""
    hits: list[tuple[int, int, int, str]] = []
    sentence_of = src.token_sentence
    for key, kind in target.keys.items():
        n = len(key)
        for i in src.positions_of(key[0]):
            number = int(sentence_of[i])
            if i + n <= src.ranges[number][4] and tuple(src.stems[i : i + n]) == key:
                hits.append((number, i, -n, kind))
    return hits


def name_quality(src: SourceText, target: TargetProfile) -> float:
    """What ``title_match`` is for a pair the source already links: the quality of the best
    name of the target in the source, inside links too, except an anchor text inside a link
    (it is known because of that link: counting it would let the label leak into the
    evidence). 0.0 when no name occurs."""
    qualities = [
        PHRASE_KIND_QUALITY[kind]
        for _, i, minus_n, kind in name_hits(src, target)
        if kind != "known_anchor"
        or not overlaps_link(src, src.tokens[i][1], src.tokens[i - minus_n - 1][2])
    ]
    return max(qualities, default=0.0)


def _one_word_name(src: SourceText, choice: AnchorChoice, sent: SentenceRange) -> bool:
    """Whether a one-word name is used as one: a noun, or a well-formed phrase by itself."""
    span = (choice.start, choice.end, sent[1], sent[2])
    return src.names_a_thing(*span) or src.well_formed(*span)


def exact_mentions(src: SourceText, target: TargetProfile) -> list[AnchorChoice]:
    """Places where a target phrase occurs verbatim (modulo case and plural) in the source, in
    text order (longest first at one place); looked up from the source's stem index, so a
    target costs its names' occurrences, not the source's length."""
    found: list[AnchorChoice] = []
    for number, i, minus_n, kind in sorted(name_hits(src, target)):
        sent = src.ranges[number]
        choice = token_choice(src, sent, i, i - minus_n, kind, PHRASE_KIND_QUALITY[kind])
        # A one-word name must be a noun or a phrase of its own: "reset" in "the state is reset"
        # is not the page "Reset". A longer name the parse cannot fit into a phrase stays as it
        # is: editors link names.
        if minus_n == -1 and not _one_word_name(src, choice, sent):
            continue
        span = src.repair(choice.start, choice.end, sent[1], sent[2]) or (choice.start, choice.end)
        if overlaps_link(src, *span):
            continue
        if span != (choice.start, choice.end):
            choice = replace(
                choice, anchor_text=src.text[span[0] : span[1]], start=span[0], end=span[1]
            )
        found.append(choice)
    return found


def sorted_names(src: SourceText, target: TargetProfile) -> list[AnchorChoice]:
    """The target's :func:`exact_mentions`, best first (quality, then longer, then earlier)."""
    exact = exact_mentions(src, target)
    exact.sort(key=lambda c: (-c.quality, -(c.end - c.start), c.start))
    return exact


def place_names(src: SourceText, target: TargetProfile, limit: int = 3) -> list[AnchorChoice]:
    """The placements of a pair on the target's names alone: what
    :func:`~linkpipe.lib.links.lexical_anchors.place_anchor` and
    :func:`~linkpipe.lib.links.semantic_anchors.place_anchor_semantic` place first, without
    the windows (the candidate step's: see :mod:`~linkpipe.lib.links.placement`)."""
    return non_overlapping(sorted_names(src, target), limit)
