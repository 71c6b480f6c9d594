"""Candidate pairs for a shard of source pages: the targets retrieval finds (see
:mod:`retrieval`), joined with TF-IDF, link-graph evidence and the best anchor placement."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, replace

import numpy as np

from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import (
    AnchorChoice,
    SourceText,
    name_quality,
    place_anchor,
)
from linkpipe.lib.links.long_sources import is_long, iter_parts, merge_choices
from linkpipe.lib.links.parse_rounds import place_in_rounds
from linkpipe.lib.links.retrieval import CandidateLimits, Retrieved, retrieve
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.semantic_anchors import (
    EncodeFn,
    TokenVectors,
    WindowVectors,
    encode_sources,
    place_anchor_semantic,
    term_hits,
    window_vectors,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.vectors.ann import AnnIndex

EMPTY: frozenset[str] = frozenset()

# Sources placed together, their judged sentences parsed in shared batches: at most this many,
# and at most PLACE_GROUP_WORDS tokens of them (about 60 MB of window vectors at 384 dimensions).
PLACE_GROUP = 16
PLACE_GROUP_WORDS = 10_000
PlaceJob = tuple[SourceText, "Callable[[], list[AnchorChoice]]"]


def _place(
    site: SiteContext,
    src: SourceText | None,
    target: str,
    vecs: WindowVectors | None,
    sims: np.ndarray | None = None,
    hits: np.ndarray | None = None,
) -> list[AnchorChoice]:
    """Anchor choices for one target in the source, best first (semantic with ``vecs``;
    ``sims``, ``hits``: the windows' cosines with this target and its terms in them, computed
    in batch)."""
    if src is None:
        return []
    profile = site.profile(target)
    if vecs is None:
        return place_anchor(src, profile, ubiquitous=site.ubiquitous)
    target_vec = site.vectors[site.row_of[target]]
    return place_anchor_semantic(
        src, vecs, profile, target_vec, sims=sims, ubiquitous=site.ubiquitous, hits=hits
    )


def window_sims(
    site: SiteContext, vecs: WindowVectors | None, targets: list[str]
) -> np.ndarray | None:
    """Cosines of every window of a source with every target, (windows, targets), in one
    matrix product: the window matrix is read once per source, not once per pair."""
    if vecs is None or not vecs.windows or not targets:
        return None
    target_matrix = site.vectors[[site.row_of[t] for t in targets]]
    sims: np.ndarray = vecs.matrix @ target_matrix.T
    return sims


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
    site: SiteContext, reuse: AnchorReuse | None, found: Retrieved, src: SourceText | None
) -> list[str | None]:
    """The anchor key of each candidate pair of a source (None without reuse or text)."""
    if reuse is None or src is None:
        return [None] * len(found.neighbours)
    source = anchor_reuse.source_key(src)
    weighted = not reuse.semantic  # lexical placement reads the terms' weights
    return [reuse.key(source, site.target_key(t, weighted)) for t in found.neighbours]


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
) -> list[CandidatePair]:
    """The rows of retrieved candidates; placements of pairs whose anchor key ``reuse`` knows
    are taken from it (``keys``: the pair keys of each source, when already computed), and
    the pairs in ``copied`` (source -> targets whose rows the caller copies) get no row. The
    sources with pairs left to place are placed a few at a time (:func:`_place_groups`), the
    sentences their placements judge parsed in shared batches (memory holds the windows of one
    group). A long source (see :mod:`long_sources`) is placed in parts, its words encoded part
    by part with ``encode`` (lexically without); ``word_vectors`` need not hold it."""
    plans = []
    for item in found:
        src = texts.get(item.source)
        pairs = keys[item.source] if keys is not None else pair_keys(site, reuse, item, src)
        skip = copied.get(item.source, frozenset()) if copied is not None else frozenset()
        known = _known_choices(pairs, reuse, [t in skip for t in item.neighbours])
        if src is not None and is_long(src):
            known = list(_long_source_choices(site, item, src, known, encode))
        plans.append(_Plan(item, src, pairs, known, skip))
    waiting = [p for p in plans if p.src is not None and any(c is None for c in p.known)]
    for group in _place_groups(waiting):
        _place_group(site, group, word_vectors)
    rows: list[CandidatePair] = []
    for p in plans:
        choices = [() if c is None else c for c in p.known]  # no source text: no anchors
        rows += _rows(site, p.item, choices, p.keys, p.skip)
        rows += labelled_rows(site, p.item, p.src, p.skip)
    return rows


@dataclass(slots=True)
class _Plan:
    """A source's retrieved pairs, their anchor keys and placements (None: still to place;
    ``()`` for the pairs skipped)."""

    item: Retrieved
    src: SourceText | None
    keys: list[str | None]
    known: list[tuple[AnchorChoice, ...] | None]
    skip: Set[str] = frozenset()  # targets whose rows are copied: neither placed nor built


def _place_groups(plans: list[_Plan]) -> list[list[_Plan]]:
    """``plans`` in order, cut into groups of :data:`PLACE_GROUP` sources and
    :data:`PLACE_GROUP_WORDS` tokens at most (a source longer than that alone)."""
    groups: list[list[_Plan]] = []
    words = 0
    for plan in plans:
        size = len(plan.src.tokens) if plan.src is not None else 0
        if not groups or len(groups[-1]) >= PLACE_GROUP or words + size > PLACE_GROUP_WORDS:
            groups.append([])
            words = 0
        groups[-1].append(plan)
        words += size
    return groups


def _place_group(site: SiteContext, group: list[_Plan], word_vectors: TokenVectors | None) -> None:
    """Fill in the missing placements of a few sources, made together (see
    :func:`place_in_rounds`): semantic with ``word_vectors``, lexical without."""
    jobs: dict[tuple[int, int], PlaceJob] = {}
    for n, plan in enumerate(group):
        assert plan.src is not None
        token_vecs = word_vectors.of(plan.item.source) if word_vectors else None
        vecs = window_vectors(plan.src, token_vecs) if token_vecs is not None else None
        jobs |= _placement_jobs(site, plan.src, list(plan.item.neighbours), vecs, plan.known, n)
    placed = place_in_rounds(jobs)
    for n, plan in enumerate(group):
        plan.known = [tuple(placed[(n, i)]) if c is None else c for i, c in enumerate(plan.known)]


def _placement_jobs(
    site: SiteContext,
    src: SourceText,
    targets: list[str],
    vecs: WindowVectors | None,
    known: Sequence[tuple[AnchorChoice, ...] | None],
    tag: int,
) -> dict[tuple[int, int], PlaceJob]:
    """A job per target of ``src`` whose placements are not ``known``, keyed (``tag``,
    target's column): its anchors, semantic with ``vecs`` (lexical without)."""
    # All targets' columns, whatever is known: a matrix product's last bits depend on its shape.
    batch = window_sims(site, vecs, targets)
    todo = [i for i, choice in enumerate(known) if choice is None]
    hits = None  # integer counts: the same whatever the batch, so only for the targets to place
    if vecs is not None and vecs.windows and todo:
        hits = term_hits(src, [site.profile(targets[i]) for i in todo], vecs)

    def job(i: int, column: int) -> Callable[[], list[AnchorChoice]]:
        sims = batch[:, i] if batch is not None else None
        counts = hits[:, column] if hits is not None else None
        return lambda: _place(site, src, targets[i], vecs, sims, counts)

    return {(tag, i): (src, job(i, column)) for column, i in enumerate(todo)}


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
        row = _pair(site, item, target, 0, item.linked[target], float(lex), (), None)
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


def _long_source_choices(
    site: SiteContext,
    item: Retrieved,
    src: SourceText,
    known: list[tuple[AnchorChoice, ...] | None],
    encode: EncodeFn | None,
) -> list[tuple[AnchorChoice, ...]]:
    """Each target's placements in a long source, part by part (see :mod:`long_sources`);
    ``known``: those reuse gives, None where they must be found."""
    targets = list(item.neighbours)
    missing = [i for i, choice in enumerate(known) if choice is None]
    found: dict[int, list[tuple[int, list[AnchorChoice]]]] = {i: [] for i in missing}
    for offset, part in iter_parts(src) if missing else []:
        vecs = None
        if encode is not None:
            token_vecs = encode_sources({"part": part}, encode).of("part")
            vecs = window_vectors(part, token_vecs) if token_vecs is not None else None
        placed = place_in_rounds(_placement_jobs(site, part, targets, vecs, known, 0))
        for i in missing:
            found[i].append((offset, placed[(0, i)]))
        part.forget_parses()  # a long page's sentences are not seen again: memory holds one part
    return [merge_choices(found[i]) if c is None else c for i, c in enumerate(known)]


def _rows(
    site: SiteContext,
    item: Retrieved,
    choices: list[tuple[AnchorChoice, ...]],
    keys: list[str | None],
    skip: Set[str] = frozenset(),
) -> list[CandidatePair]:
    """The rows of a source's targets (in order) with their placements, but those in
    ``skip``."""
    kept = [
        (t, placed, key)
        for t, placed, key in zip(item.neighbours, choices, keys, strict=True)
        if t not in skip
    ]
    lexical = site.lexical_sims(item.source, [t for t, _, _ in kept])
    return [
        _pair(site, item, t, *item.neighbours[t], float(lex), placed, key)
        for (t, placed, key), lex in zip(kept, lexical, strict=True)
    ]


def _known_choices(
    keys: list[str | None], reuse: AnchorReuse | None, skipped: list[bool] | None = None
) -> list[tuple[AnchorChoice, ...] | None]:
    """The placements ``reuse`` knows for each key, None where they must be computed, ``()``
    for the pairs ``skipped`` (their rows are copied: nothing to place)."""
    skipped = skipped or [False] * len(keys)
    return [
        () if skip else reuse.take(k) if reuse is not None and k is not None else None
        for k, skip in zip(keys, skipped, strict=True)
    ]


def _pair(
    site: SiteContext,
    item: Retrieved,
    target: str,
    rank: int,
    sim: float,
    lex: float,
    choices: tuple[AnchorChoice, ...],
    key: str | None,
) -> CandidatePair:
    """The candidate row of one pair from its evidence and placements."""
    source = item.source
    cocitation, shared = graph_signals(site, source, target)
    best = choices[0] if choices else None
    title_match = best.quality if best and best.source_kind not in ("phrase", "semantic") else 0.0
    mention = item.named.get(target)
    return CandidatePair(
        source_url=source,
        target_url=target,
        semantic_rank=rank or None,
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
    )
