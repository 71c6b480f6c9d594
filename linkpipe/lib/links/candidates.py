"""Candidate pairs for a shard of source pages: the targets retrieval finds (see
:mod:`retrieval`), joined with TF-IDF, link-graph evidence and anchor placements (see
:mod:`placement`: the candidate step places names only)."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import replace

from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import AnchorChoice, SourceText
from linkpipe.lib.links.name_anchors import name_quality
from linkpipe.lib.links.placement import PartParses, Plan, make_plan, place_plans
from linkpipe.lib.links.retrieval import CandidateLimits, Retrieved, retrieve
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.semantic_anchors import EncodeFn, TokenVectors
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.vectors.ann import AnnIndex

EMPTY: frozenset[str] = frozenset()


def graph_signals(site: SiteContext, source: str, target: str) -> tuple[float, float]:
    """(co-citation, shared neighbours): pages linking to both, and Jaccard of out-links."""
    a, b = site.linked_from.get(source, EMPTY), site.linked_from.get(target, EMPTY)
    cocited = len(a & b)
    cocitation = cocited / (cocited + 2.0)
    # out-links of each but the other page, counted without copying either set
    out_a, out_b = site.content_links.get(source, EMPTY), site.content_links.get(target, EMPTY)
    both = out_a & out_b
    shared = len(both) - (target in both) - (source in both and source != target)
    size_a, size_b = len(out_a) - (target in out_a), len(out_b) - (source in out_b)
    union = size_a + size_b - shared
    return cocitation, (shared / union if union else 0.0)


def pair_keys(
    site: SiteContext,
    reuse: AnchorReuse | None,
    found: Retrieved,
    src: SourceText | None,
    skip: Set[str] = EMPTY,
) -> list[str | None]:
    """The key ``reuse`` looks each candidate pair of a source up by: its name key when it
    holds names-only placements (``reuse.names``), else its anchor key (None without reuse
    or text, and for the targets in ``skip``: pairs whose rows are copied)."""
    if reuse is None or src is None:
        return [None] * len(found.neighbours)
    if not reuse.names:
        return anchor_keys(site, reuse, found, src, skip)
    source = anchor_reuse.source_key(src)
    return [
        None if t in skip else reuse.names_key(source, site.names_digest(t))
        for t in found.neighbours
    ]


def anchor_keys(
    site: SiteContext,
    reuse: AnchorReuse,
    found: Retrieved,
    src: SourceText,
    skip: Set[str] = EMPTY,
) -> list[str | None]:
    """The anchor key of each candidate pair of a source (None for the targets in ``skip``)."""
    source = anchor_reuse.source_key(src)
    weighted = not reuse.semantic  # lexical placement reads the terms' weights
    return [
        None if t in skip else reuse.key(source, site.target_key(t, weighted))
        for t in found.neighbours
    ]


def build_candidates(
    site: SiteContext,
    sources: list[str],
    texts: dict[str, SourceText],
    ann: AnnIndex,
    k: int = 20,
    min_similarity: float = 0.2,
    word_vectors: TokenVectors | None = None,
    k_lexical: int = 10,
    k_mention: int = 20,
) -> list[CandidatePair]:
    """Candidate rows for the given source pages (each a ``candidate_pairs`` row): the
    targets of :func:`retrieve` with their evidence and anchors. With ``word_vectors`` (see
    :func:`~linkpipe.lib.links.semantic_anchors.encode_sources`) anchors are placed
    semantically (see semantic_anchors), else lexically (see anchors)."""
    limits = CandidateLimits(k, min_similarity, k_lexical, k_mention)
    found = retrieve(site, sources, texts, ann, limits)
    return candidate_rows(site, found, texts, word_vectors, None)


def candidate_rows(
    site: SiteContext,
    found: list[Retrieved],
    texts: dict[str, SourceText],
    word_vectors: TokenVectors | None,
    reuse: AnchorReuse | None,
    encode: EncodeFn | None = None,
    keys: Mapping[str, list[str | None]] | None = None,
    copied: Mapping[str, Set[str]] | None = None,
    names_only: bool = False,
    part_parses: PartParses | None = None,
) -> list[CandidatePair]:
    """The rows of retrieved candidates with their placements (see :mod:`placement`): names
    only (``names_only``: the candidate step's), or names and windows, semantic with
    ``word_vectors`` (a long source's parts encoded with ``encode``), lexical without.
    Placements of pairs whose anchor key ``reuse`` knows are taken from it (``keys``: the pair
    keys of each source, when already computed), and the pairs in ``copied`` (source ->
    targets whose rows the caller copies) get no row. ``part_parses``: what surrounds the
    placing of each part of a long source (see :data:`~placement.PartParses`)."""
    plans = []
    for item in found:
        src = texts.get(item.source)
        pairs = keys[item.source] if keys is not None else pair_keys(site, reuse, item, src)
        skip = copied.get(item.source, frozenset()) if copied is not None else frozenset()
        plans.append(make_plan(item.source, src, list(item.neighbours), pairs, reuse, skip))
    place_plans(site, plans, word_vectors, encode, names_only, part_parses=part_parses)
    rows: list[CandidatePair] = []
    for item, p in zip(found, plans, strict=True):
        row_keys = _row_keys(site, reuse, item, p)
        rows += _rows(site, item, [c or () for c in p.known], *row_keys, p.skip)
        rows += labelled_rows(site, item, p.src, p.skip)
    return rows


def _row_keys(
    site: SiteContext, reuse: AnchorReuse | None, item: Retrieved, plan: Plan
) -> tuple[list[str | None], list[str | None]]:
    """The anchor and name keys of a source's rows: the plan's keys are name keys when
    ``reuse`` holds names-only placements (the anchor keys then made here), else anchor keys
    (and the rows get no name key)."""
    if reuse is None or not reuse.names or plan.src is None:
        return plan.keys, [None] * len(plan.keys)
    return anchor_keys(site, reuse, item, plan.src, plan.skip), plan.keys


def labelled_rows(
    site: SiteContext,
    item: Retrieved,
    src_text: SourceText | None,
    skip: Set[str] = frozenset(),
) -> list[CandidatePair]:
    """Rows of the pairs the source already links (``already_linked_content``), with the same
    evidence as a candidate's as far as it does not count the link itself: the name found
    inside the link counts as a title match, its link probability leaves this link out. No
    anchors: they are labelled data for the site's weights and confidence, never suggestions.
    The targets in ``skip`` get no row."""
    targets = [t for t in item.linked if t not in skip]
    lexical = site.lexical_sims(item.source, targets)
    rows = []
    for target, lex in zip(targets, lexical, strict=True):
        mention = item.named.get(target)
        if mention is not None:
            mention = site.mentions.without_one_link(mention)
        title = name_quality(src_text, site.profile(target)) if src_text is not None else 0.0
        row = _pair(site, item, target, item.linked[target], float(lex), (), None)
        rows.append(
            replace(
                row,
                title_match=title,
                mention_score=mention.probability if mention else 0.0,
                mention_pages=mention.mentions if mention else None,
                mention_links=mention.links if mention else None,
            )
        )
    return rows


def _rows(
    site: SiteContext,
    item: Retrieved,
    choices: list[tuple[AnchorChoice, ...]],
    keys: list[str | None],
    name_keys: list[str | None],
    skip: Set[str] = frozenset(),
) -> list[CandidatePair]:
    """The rows of a source's targets (in order) with their placements and their anchor and
    name keys, but those in ``skip``."""
    kept = [
        (t, placed, key, name)
        for t, placed, key, name in zip(item.neighbours, choices, keys, name_keys, strict=True)
        if t not in skip
    ]
    lexical = site.lexical_sims(item.source, [t for t, *_ in kept])
    return [
        _pair(site, item, t, item.neighbours[t], float(lex), placed, key, name)
        for (t, placed, key, name), lex in zip(kept, lexical, strict=True)
    ]


def _pair(
    site: SiteContext,
    item: Retrieved,
    target: str,
    sim: float,
    lex: float,
    choices: tuple[AnchorChoice, ...],
    key: str | None,
    name_key: str | None = None,
) -> CandidatePair:
    """The candidate row of one pair from its evidence, placements and keys."""
    source = item.source
    cocitation, shared = graph_signals(site, source, target)
    best = choices[0] if choices else None
    title_match = best.quality if best and best.source_kind not in ("phrase", "semantic") else 0.0
    mention = item.named.get(target)
    return CandidatePair(
        source_url=source,
        target_url=target,
        semantic_sim=round(sim, 6),
        lexical_sim=round(lex, 6),
        title_match=title_match,
        mention_score=mention.probability if mention else 0.0,
        mention_phrase=mention.phrase if mention else None,
        mention_pages=mention.mentions if mention else None,
        mention_links=mention.links if mention else None,
        cocitation=round(cocitation, 6),
        shared_neighbors=round(shared, 6),
        already_linked_content=target in site.content_links.get(source, set()),
        already_linked_nav=(source, target) in site.nav_links,
        anchors=choices,
        anchor_key=key,
        mention_key=mention.key if mention else None,
        name_key=name_key,
    )
