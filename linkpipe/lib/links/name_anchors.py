"""A target's names in a source: where its title, H1, slug or known anchors occur verbatim
(modulo case and plural), looked up from the source's stem index so that a target costs
its names' occurrences, not the source's length; and the placements of a pair on those names
alone (see :mod:`~linkpipe.lib.links.anchors` for the source text, the target profile and the
rules every anchor follows).

A name's placement reads the parse of its sentence twice: a one-word name must be used as a
name (a noun, or a phrase of its own), and a name's span is repaired to the smallest
well-formed phrase around it, which must not take in a link of the source. The candidate step
places names for every pair for their ``title_match`` only (the quality of the best one) and
scoring places the pairs it keeps again in full, so the candidate step keeps each name's own
words (``repair=False``) and repairs a span only to know whether a link stops it: the repair
widens a span by a few words at most (:func:`~linkpipe.lib.text.phrases.repair_reach`), so
a name's sentence is parsed only for a one-word name or a link within that reach
(:func:`judged`): the same names are kept and ``title_match`` is the same."""

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


def exact_mentions(
    src: SourceText, target: TargetProfile, repair: bool = True
) -> list[AnchorChoice]:
    """Places where a target phrase occurs verbatim (modulo case and plural) in the source, in
    text order (longest first at one place); looked up from the source's stem index, so a
    target costs its names' occurrences, not the source's length. ``repair``: each span
    widened to the smallest well-formed phrase around it, else the name's own words (a
    name is kept or dropped the same either way: see the module)."""
    found: list[AnchorChoice] = []
    for number, i, minus_n, kind in sorted(name_hits(src, target)):
        sent = src.ranges[number]
        choice = token_choice(src, sent, i, i - minus_n, kind, PHRASE_KIND_QUALITY[kind])
        span = (choice.start, choice.end)
        if overlaps_link(src, *span):  # so does every phrase around it: judged without a parse
            continue
        # A one-word name must be a noun or a phrase of its own: "reset" in "the state is reset"
        # is not the page "Reset". A longer name the parse cannot fit into a phrase stays as it
        # is: editors link names.
        if minus_n == -1 and not _one_word_name(src, choice, sent):
            continue
        if repair or _link_in_reach(src, span, sent):  # else the repair cannot reach a link
            widened = src.repair(choice.start, choice.end, sent[1], sent[2]) or span
            if overlaps_link(src, *widened):
                continue
            span = widened if repair else span
        if span != (choice.start, choice.end):
            choice = replace(
                choice, anchor_text=src.text[span[0] : span[1]], start=span[0], end=span[1]
            )
        found.append(choice)
    return found


def judged(src: SourceText, hit: tuple[int, int, int, str]) -> bool:
    """Whether placing a name hit (of :func:`name_hits`) without repairs reads the parse of
    its sentence: a name outside the source's links that is one word or has a link within
    the repair's reach."""
    number, i, minus_n, _ = hit
    span = (src.tokens[i][1], src.tokens[i - minus_n - 1][2])
    if overlaps_link(src, *span):
        return False
    return minus_n == -1 or _link_in_reach(src, span, src.ranges[number])


def _link_in_reach(src: SourceText, span: tuple[int, int], sent: SentenceRange) -> bool:
    """Whether a link of the source lies where a repair of ``span`` may widen it to (the
    sentence's words scanned only when a link is in the sentence: most sentences hold none)."""
    if not overlaps_link(src, sent[1], sent[2]):
        return False
    return overlaps_link(src, *src.repair_reach(*span, sent[1], sent[2]))


def sorted_names(
    src: SourceText, target: TargetProfile, repair: bool = True
) -> list[AnchorChoice]:
    """The target's :func:`exact_mentions`, best first (quality, then longer, then earlier)."""
    exact = exact_mentions(src, target, repair)
    exact.sort(key=lambda c: (-c.quality, -(c.end - c.start), c.start))
    return exact


def place_names(
    src: SourceText, target: TargetProfile, limit: int = 3, repair: bool = True
) -> list[AnchorChoice]:
    """The placements of a pair on the target's names alone: what
    :func:`~linkpipe.lib.links.lexical_anchors.place_anchor` and
    :func:`~linkpipe.lib.links.semantic_anchors.place_anchor_semantic` place first, without
    the windows (the candidate step's, unrepaired: see :mod:`~linkpipe.lib.links.placement`)."""
    return non_overlapping(sorted_names(src, target, repair), limit)
