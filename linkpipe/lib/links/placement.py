"""Placing the anchors of many (source, target) pairs: a group of sources at a time, the
sentences their placements judge parsed in shared batches (see :mod:`parse_rounds`; two
groups' rounds wait together, so that a group's last rounds, which ask for a few sentences
each, are parsed with the next group's first).

Two depths, one code path:

* **names** (``names_only``): the exact mentions of the target's names in the source (see
  :func:`~linkpipe.lib.links.name_anchors.place_names`), each span the name's own words (a
  sentence is parsed for a one-word name or a link near a name). The candidate step places
  these for every pair: a pair's ``title_match`` is the quality of its best name, so scoring
  needs them.
* **full**: names, then the best windows of the source's words: semantic with the source's word
  vectors (see :mod:`semantic_anchors`), lexical without (see :func:`lexical_anchors.place_anchor`).
  The semantic windows are most of a placement's cost (the source's word vectors, its
  windows' vectors and the parse of the sentences judged), so they are found only for the
  pairs scoring keeps (:func:`place_kept`): about a fifth of the candidates; and only as
  many as the anchor ledger looks at (a pair's first placement is free for ~60 % of kept
  pairs; each further one parses more sentences), the rest when the site's ledger asks.

A long source (see :mod:`long_sources`) is placed in parts, its words encoded part by part.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence, Set
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace

import numpy as np

from linkpipe.lib.links.anchor_ledger import AnchorLedger, Prefix, complete
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import AnchorChoice, SourceText
from linkpipe.lib.links.lexical_anchors import place_anchor
from linkpipe.lib.links.long_sources import is_long, iter_parts, merge_choices
from linkpipe.lib.links.name_anchors import place_names
from linkpipe.lib.links.parse_rounds import Needs, drive_together, place_in_rounds, rounds
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.semantic_anchors import (
    MIN_QUALITY,
    EncodeFn,
    TokenVectors,
    WindowVectors,
    encode_sources,
    semantic_placements,
    term_hits,
    window_vectors,
)
from linkpipe.lib.links.site_context import SiteContext

# Sources placed together, their judged sentences parsed in shared batches: at most this many,
# and at most PLACE_GROUP_WORDS tokens of them (about 120 MB of word vectors at 384 dimensions).
# A parse round's batch grows with the group, and spaCy parses a batch of one to four
# sentences at 1.4-3.1 times the CPU a sentence of a batch of 16 or more (docs/benchmarks.md).
PLACE_GROUP = 128
PLACE_GROUP_WORDS = 80_000
# Groups whose parse rounds wait together (their windows' vectors held at once), and the
# sentences that make a batch worth parsing before another group starts: a group's last
# rounds ask for a few sentences each (see :func:`~parse_rounds.drive_together`).
GROUPS_AT_ONCE = 2
PARSE_TOGETHER = 64
# Placements a kept pair keeps, best first: what the anchor ledger falls back on when a better
# one's text already links another target of the page (windows are placed for kept pairs only,
# so a longer list costs little).
KEPT_CHOICES = 5
PlaceJob = tuple[SourceText, "Callable[[], Choices]"]
Choices = tuple[AnchorChoice, ...]


@dataclass(slots=True)
class Plan:
    """A source's targets, their anchor keys and placements (None: still to place; ``()`` for
    the targets skipped)."""

    source: str
    src: SourceText | None
    targets: list[str]
    keys: list[str | None]
    known: list[Choices | None]
    skip: Set[str] = frozenset()  # targets whose rows are copied: neither placed nor built


PartParses = Callable[[Plan, SourceText], AbstractContextManager[None]]
"""What surrounds the placing of one part of a long source (its plan, the part): a long
source's parses are not held whole, so the caller loads the stored parses of the part's
judged sentences before and stores the new ones after (the candidate step's
:class:`~linkpipe.lib.stages.parse_cache.ParseCache`)."""


def make_plan(
    source: str,
    src: SourceText | None,
    targets: list[str],
    keys: list[str | None],
    reuse: AnchorReuse | None,
    skip: Set[str] = frozenset(),
) -> Plan:
    """The plan of a source: the placements ``reuse`` knows by key taken, ``()`` for ``skip``."""
    known: list[Choices | None] = [
        () if t in skip else reuse.take(k) if reuse is not None and k is not None else None
        for t, k in zip(targets, keys, strict=True)
    ]
    return Plan(source, src, targets, keys, known, skip)


def place_plans(
    site: SiteContext,
    plans: list[Plan],
    word_vectors: TokenVectors | None,
    encode: EncodeFn | None,
    names_only: bool = False,
    lazy: bool = False,
    part_parses: PartParses | None = None,
) -> None:
    """Fill in every plan's missing placements: names only (``names_only``), or names and
    windows (semantic with ``word_vectors``, which need not hold a long source: its parts are
    encoded with ``encode``, each placed within ``part_parses``; lexical without). A plan
    without source text gets none. ``lazy``: a short source's semantic placements as far as
    its own pairs need (see :func:`_place_group`)."""
    for plan in plans:  # a source whose placements are all known is not even tokenized
        if plan.src is not None and None in plan.known and is_long(plan.src):
            choices = _long_source_choices(site, plan, encode, names_only, part_parses)
            plan.known = list(choices)
    waiting = [p for p in plans if p.src is not None and any(c is None for c in p.known)]
    groups = (
        _place_group(site, group, word_vectors, names_only, lazy)
        for group in _place_groups(waiting)
    )
    drive_together(groups, PARSE_TOGETHER, GROUPS_AT_ONCE)
    for plan in plans:
        plan.known = [() if c is None else c for c in plan.known]


def place_kept(
    site: SiteContext,
    pairs: Sequence[CandidatePair],
    texts: Mapping[str, SourceText],
    encode: EncodeFn | None,
    reuse: AnchorReuse | None = None,
    lazy: bool = True,
) -> list[CandidatePair]:
    """The kept ``pairs`` (a source's pairs consecutive) with their full placements: names and
    semantic windows with ``encode`` (lexical windows without), those ``reuse`` knows by the
    pair's anchor key taken from it. ``texts``: the sources' texts (a source without one keeps
    no anchor). ``lazy``: a pair's semantic placements only as far as the anchor ledger
    placing its source alone looks (a :class:`Prefix` when more may follow: the ledger of the
    site asks for the rest, see :mod:`~linkpipe.lib.links.anchor_ledger`)."""
    plans: list[Plan] = []
    for pair in pairs:
        if not plans or plans[-1].source != pair.source_url:
            src = texts.get(pair.source_url)
            plans.append(Plan(pair.source_url, src, [], [], []))
        plans[-1].targets.append(pair.target_url)
        plans[-1].keys.append(pair.anchor_key)
    plans = [make_plan(p.source, p.src, p.targets, p.keys, reuse) for p in plans]
    new = {
        p.source: p.src
        for p in plans
        if p.src is not None and not is_long(p.src) and any(c is None for c in p.known)
    }
    vectors = encode_sources(new, encode) if encode is not None and new else None
    place_plans(site, plans, vectors, encode, lazy=lazy)
    placed = (choices for plan in plans for choices in plan.known)
    return [
        replace(pair, anchors=choices if choices is not None else ())
        for pair, choices in zip(pairs, placed, strict=True)
    ]


def _place(
    site: SiteContext,
    src: SourceText,
    target: str,
    vecs: WindowVectors | None,
    names_only: bool,
    hits: np.ndarray | None = None,
    limit: int = KEPT_CHOICES,
) -> Choices:
    """Anchor choices for one target in the source, best first: its names only
    (``names_only``), or names and windows, semantic with ``vecs`` (``hits``: this target's
    terms in each window, counted for many targets at once; ``limit``: the first ``limit``
    of :data:`KEPT_CHOICES`, a :class:`Prefix` when more may follow)."""
    profile = site.profile(target)
    if names_only:
        return tuple(place_names(src, profile, repair=False))
    if vecs is None:
        return tuple(place_anchor(src, profile, ubiquitous=site.ubiquitous))
    target_vec = site.vectors[site.row_of[target]]
    args = (MIN_QUALITY, limit, None, site.ubiquitous, hits)
    choices, more = semantic_placements(src, vecs, profile, target_vec, *args)
    return Prefix(choices) if more and limit < KEPT_CHOICES else tuple(choices)


def _place_groups(plans: list[Plan]) -> list[list[Plan]]:
    """``plans`` in order, cut into groups of :data:`PLACE_GROUP` sources and
    :data:`PLACE_GROUP_WORDS` tokens at most (a source longer than that alone)."""
    groups: list[list[Plan]] = []
    words = 0
    for plan in plans:
        size = len(plan.src.tokens) if plan.src is not None else 0
        if not groups or len(groups[-1]) >= PLACE_GROUP or words + size > PLACE_GROUP_WORDS:
            groups.append([])
            words = 0
        groups[-1].append(plan)
        words += size
    return groups


def _place_group(
    site: SiteContext,
    group: list[Plan],
    word_vectors: TokenVectors | None,
    names_only: bool,
    lazy: bool = False,
) -> Generator[Needs, None, None]:
    """Fill in the missing placements of a few sources, made together: a generator of parse
    rounds (see :func:`~parse_rounds.rounds`), its windows' vectors made when it starts.
    ``lazy``: a pair's windows are placed one at a time, as far as an anchor ledger placing
    the source alone looks (a :class:`Prefix` each; see
    :mod:`~linkpipe.lib.links.anchor_ledger`), not :data:`KEPT_CHOICES` of them."""
    vecs: list[WindowVectors | None] = []
    for plan in group:
        assert plan.src is not None
        token_vecs = word_vectors.of(plan.source) if word_vectors and not names_only else None
        vecs.append(window_vectors(plan.src, token_vecs) if token_vecs is not None else None)
    first = 1 if lazy else KEPT_CHOICES
    limits: dict[tuple[int, int], int] = {}
    while True:
        jobs: dict[tuple[int, int], PlaceJob] = {}
        for n, plan in enumerate(group):
            assert plan.src is not None
            columns = {i: limits.get((n, i), first) for i in range(len(plan.known))}
            jobs |= _placement_jobs(
                site, plan.src, plan.targets, vecs[n], plan.known, n, names_only, columns
            )
        if not jobs:
            return
        for (n, i), choices in (yield from rounds(jobs)).items():
            group[n].known[i] = choices
        for n, i in _looked_past(group) if lazy else []:
            placed = len(group[n].known[i] or ())  # fewer than its limit when some fell short
            limits[(n, i)] = max(limits.get((n, i), first), placed) + 1
            group[n].known[i] = None


def _looked_past(group: list[Plan]) -> list[tuple[int, int]]:
    """(plan, target column) of the pairs whose :class:`Prefix` an anchor ledger placing each
    source of ``group`` alone looks past (their next placement is needed)."""
    out = []
    for n, plan in enumerate(group):
        if all(c is None or complete(c) for c in plan.known):
            continue
        ledger = AnchorLedger(KEPT_CHOICES)  # one source: no target's phrase used twice
        choices = [
            (t, () if c is None else c) for t, c in zip(plan.targets, plan.known, strict=True)
        ]
        ledger.place_source(plan.source, choices)
        column = {t: i for i, t in enumerate(plan.targets)}
        out += [(n, column[target]) for _, target in ledger.short]
    return list(dict.fromkeys(out))  # a pair may be looked past more than once


def _placement_jobs(
    site: SiteContext,
    src: SourceText,
    targets: list[str],
    vecs: WindowVectors | None,
    known: Sequence[Choices | None],
    tag: int,
    names_only: bool,
    limits: Mapping[int, int] | None = None,
) -> dict[tuple[int, int], PlaceJob]:
    """A job per target of ``src`` whose placements are not ``known``, keyed (``tag``,
    target's column), placing at most ``limits[column]`` windows (default
    :data:`KEPT_CHOICES`). Each target's window cosines are a product of their own (in
    :func:`semantic_windows`): a product's last bits depend on its shape, and a pair's
    placements must not depend on which other pairs of the source are placed with it (the
    kept pairs of a source change from crawl to crawl; stored placements are reused by key)."""
    todo = [i for i, choice in enumerate(known) if choice is None]
    hits = None  # integer counts: the same whatever the batch, so only for the targets to place
    if vecs is not None and vecs.windows and todo:
        hits = term_hits(src, [site.profile(targets[i]) for i in todo], vecs)

    def job(i: int, column: int) -> Callable[[], Choices]:
        counts = hits[:, column] if hits is not None else None
        limit = limits.get(i, KEPT_CHOICES) if limits is not None else KEPT_CHOICES
        return lambda: _place(site, src, targets[i], vecs, names_only, counts, limit)

    return {(tag, i): (src, job(i, column)) for column, i in enumerate(todo)}


def _long_source_choices(
    site: SiteContext,
    plan: Plan,
    encode: EncodeFn | None,
    names_only: bool,
    part_parses: PartParses | None = None,
) -> list[Choices | None]:
    """Each target's placements in a long source, part by part (see :mod:`long_sources`):
    the known ones kept, the others found (windows semantic with ``encode``), each part
    within ``part_parses``."""
    assert plan.src is not None
    missing = [i for i, choice in enumerate(plan.known) if choice is None]
    found: dict[int, list[tuple[int, Choices]]] = {i: [] for i in missing}
    for offset, part in iter_parts(plan.src) if missing else []:
        vecs = None
        if encode is not None and not names_only:
            token_vecs = encode_sources({"part": part}, encode).of("part")
            vecs = window_vectors(part, token_vecs) if token_vecs is not None else None
        jobs = _placement_jobs(site, part, plan.targets, vecs, plan.known, 0, names_only)
        with nullcontext() if part_parses is None else part_parses(plan, part):
            placed = place_in_rounds(jobs)
        for i in missing:
            found[i].append((offset, placed[(0, i)]))
        part.forget_parses()  # a long page's sentences are not seen again: memory holds one part
    limit = 3 if names_only else KEPT_CHOICES
    return [merge_choices(found[i], limit) if c is None else c for i, c in enumerate(plan.known)]
