"""From candidate pairs to link opportunities: filters, priority, caps, anchors and reasons.

Every scorable pair's score is computed at once (see :mod:`priorities` for the formula); the
weights and thresholds live in :class:`~linkpipe.lib.links.scoring_config.ScoringConfig` and are
documented in docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.calibration import Calibration, calibrate
from linkpipe.lib.links.pair_table import PairTable, as_table
from linkpipe.lib.links.priorities import (
    GRAPH,
    SEMANTIC,
    SitePriorities,
    component_matrix,
    relevance_of,
    site_priorities,
)
from linkpipe.lib.links.rows import CandidatePair, CannibalisationPair
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig, target_need
from linkpipe.lib.text.lexical import phrase_key


def _title_overlap(a: str, b: str) -> float:
    """Jaccard of the stemmed words of two titles."""
    ka, kb = set(phrase_key(a)), set(phrase_key(b))
    return len(ka & kb) / len(ka | kb) if ka and kb else 0.0


MAX_REASON_WORDS = 25
QUOTE_WORDS = 4  # longest quoted name in a reason; longer ones end in an ellipsis


def quoted(text: str, max_words: int = QUOTE_WORDS) -> str:
    """A name in double quotes, cut after ``max_words`` whole words."""
    words = text.split()
    cut = " ".join(words[:max_words]) + ("…" if len(words) > max_words else "")
    return f'"{cut}"'


def _need_clause(target: PageFacts) -> str | None:
    """What the target lacks, in a few words, None when it is well linked."""
    if target.is_orphan:
        return "target is an orphan"
    if target.click_depth is None:
        return "target is unreachable by links"
    if target.click_depth > 3:
        return f"target is {target.click_depth} clicks deep"
    if target.content_inlinks == 0:
        return "target has no in-text links"
    if target.content_inlinks == 1:
        return "target has one in-text link"
    return None


def _anchor_clause(cand: CandidatePair, anchor: AnchorChoice | None) -> tuple[float, str] | None:
    """(strength, clause) of the anchor placed, None when the mention clause says it."""
    if anchor is None or not anchor.anchor_text:
        return None
    named = cand.mention_phrase and phrase_key(cand.mention_phrase) == phrase_key(
        anchor.anchor_text
    )
    if named and cand.mention_links:
        return None
    if anchor.source_kind in ("title", "h1", "slug"):
        strength = 0.12 * max(cand.title_match, 0.5)
        return strength, f"sentence names it ({quoted(anchor.anchor_text)})"
    if anchor.source_kind == "known_anchor":
        return 0.08, f"other pages link to it as {quoted(anchor.anchor_text)}"
    return 0.02, f"sentence is about {quoted(anchor.anchor_text)}"


Parts = tuple[float, float, float]
"""A scored pair's relevance, semantic component and graph component."""


def _relevance_parts(config: ScoringConfig, cand: CandidatePair, parts: Parts | None) -> Parts:
    """(relevance, semantic component, graph component) of the pair: ``parts`` when it was
    scored, else computed."""
    if parts is not None:
        return parts
    components = component_matrix(config, [cand])
    rel = float(relevance_of(config, components)[0])
    return rel, float(components[0, SEMANTIC]), float(components[0, GRAPH])


def reason_evidence(
    config: ScoringConfig,
    cand: CandidatePair,
    anchor: AnchorChoice | None,
    target: PageFacts,
    parts: Parts | None = None,
) -> list[tuple[float, str]]:
    """(strength, clause) of each piece of evidence for the pair, strongest first.

    A strength is the piece's share of the score: its weighted relevance component, or for the
    target's need and business value the part of the score their factors add."""
    rel, sem, graph = _relevance_parts(config, cand, parts)
    found: list[tuple[float, str]] = []
    if cand.mention_phrase and cand.mention_links:
        found.append(
            (
                config.w_mention * cand.mention_score,
                f"names {quoted(cand.mention_phrase)} (linked by {cand.mention_links} of "
                f"{cand.mention_pages} pages that mention it)",
            )
        )
    if sem >= 0.3:
        topic = "closely related topic" if sem >= 0.6 else "related topic"
        found.append((config.w_semantic * sem, topic))
    if cand.lexical_sim >= 0.15:
        found.append((config.w_lexical * min(1.0, 2 * cand.lexical_sim), "shares key terms"))
    if cand.cocitation > 0:
        found.append((config.w_graph * graph, "often linked from the same pages"))
    anchor_part = _anchor_clause(cand, anchor)
    if anchor_part:
        found.append(anchor_part)
    need = _need_clause(target)
    if need:
        found.append((0.3 * target_need(target) * rel, need))
    if target.business_value > 0:
        note = target.value_notes[0] if target.value_notes else "valuable to the business"
        verb = "is" if note.startswith(("a ", "an ", "in ", "valuable")) else "has"
        found.append((0.25 * target.business_value * rel, f"target {verb} {note}"))
    found.sort(key=lambda item: -item[0])
    return found


def build_reason(
    cand: CandidatePair,
    anchor: AnchorChoice | None,
    target: PageFacts,
    config: ScoringConfig | None = None,
    parts: Parts | None = None,
) -> str:
    """One sentence of at most :data:`MAX_REASON_WORDS` words, strongest evidence first, e.g.
    'Names "Layers Dialog" (linked by 8 of 19 pages that mention it); closely related topic;
    target is an orphan.'"""
    config = config or ScoringConfig()
    tail = [] if anchor is not None and anchor.anchor_text else ["no sentence fits yet: add one"]
    budget = MAX_REASON_WORDS - sum(len(t.split()) for t in tail)
    kept: list[str] = []
    for _, clause in reason_evidence(config, cand, anchor, target, parts):
        words = len(clause.split())
        if words <= budget:
            kept.append(clause)
            budget -= words
    clauses = (kept or ["semantically close pages"]) + tail
    text = "; ".join(clauses)
    return text[0].upper() + text[1:] + "."


@dataclass(frozen=True)
class Selection:
    """The pairs scoring keeps, as indices into the scored table (best first) with their rank
    on their source and their stored score, the site's confidence calibration and the
    cannibalisation pairs found."""

    site: SitePriorities
    kept: NDArray[np.int64]
    ranks: NDArray[np.int64]
    scores: list[float]  # each kept pair's score rounded to 6 decimals, as it is stored
    calibration: Calibration
    cannibalisation: list[CannibalisationPair]


def select_opportunities(
    candidates: PairTable | Sequence[CandidatePair],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
) -> Selection:
    """Score every pair of ``candidates`` between two pages of ``facts`` and keep the best
    within the caps, on arrays: no row is read. The confidence is calibrated on every such
    pair, those linked in content being the positives (see
    :func:`linkpipe.lib.links.calibration.calibrate`)."""
    config = config or ScoringConfig()
    site = site_priorities(config, as_table(candidates).scorable(set(facts)), facts)
    order, cannibal = suggestable(site, facts, decisions or {}, config)
    kept, ranks = within_caps(site, order, config)
    suggested = rounded(site.score[kept])
    return Selection(site, kept, ranks, suggested, calibrate_scores(site, suggested), cannibal)


def rounded(values: NDArray[np.float64]) -> list[float]:
    """Each value rounded to 6 decimals by Python's ``round``, as stored scores always were."""
    return [round(v, 6) for v in values.tolist()]


def calibrate_scores(site: SitePriorities, suggested: Sequence[float]) -> Calibration:
    """The site's calibration: every scorable pair's score, the linked ones positive."""
    return calibrate(site.score, site.table.linked, suggested)


def _rejected(table: PairTable, decisions: dict[tuple[str, str], str]) -> NDArray[np.bool_]:
    """Whether each pair was rejected by an editor."""
    if "rejected" not in decisions.values():
        return np.zeros(len(table), dtype=np.bool_)
    code = {u: i for i, u in enumerate(table.urls)}
    keys = [
        code[s] * len(table.urls) + code[t]
        for (s, t), decision in decisions.items()
        if decision == "rejected" and s in code and t in code
    ]
    pair_keys = table.source.astype(np.int64) * len(table.urls) + table.target
    return np.isin(pair_keys, np.array(keys, dtype=np.int64))


def suggestable(
    site: SitePriorities,
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str],
    config: ScoringConfig,
) -> tuple[NDArray[np.int64], list[CannibalisationPair]]:
    """(indices of the pairs that may be suggested, best first; the cannibalisation pairs):
    not linked in content, not rejected, not near-twins, relevant enough, from a source with
    prose (a page of code listings alone has no sentence to put a link in)."""
    table = site.table
    prose = np.array([facts[u].has_prose if u in facts else True for u in table.urls], dtype=bool)
    open_ = ~table.linked & ~_rejected(table, decisions) & prose[table.source]
    twins = np.zeros(len(table), dtype=np.bool_)
    cannibal: dict[tuple[str, str], CannibalisationPair] = {}
    for i in np.flatnonzero(open_ & (table.semantic_sim >= config.cannibal_similarity)).tolist():
        s, t = table.urls[table.source[i]], table.urls[table.target[i]]
        twin = cannibalisation(config, float(table.semantic_sim[i]), (s, facts[s]), (t, facts[t]))
        if twin is not None:
            cannibal[(twin.url_a, twin.url_b)] = twin
            twins[i] = True
    found = np.flatnonzero(open_ & ~twins & (site.relevance >= config.min_relevance))
    ranked = np.lexsort((table.target[found], table.source[found], -site.score[found]))
    return found[ranked], list(cannibal.values())


def cannibalisation(
    config: ScoringConfig,
    semantic_sim: float,
    source: tuple[str, PageFacts],
    target: tuple[str, PageFacts],
) -> CannibalisationPair | None:
    """The pair (each end: its URL and facts) as cannibalisation when the two pages are
    near-identical in topic and purpose."""
    (source_url, source_facts), (target_url, target_facts) = source, target
    if (
        semantic_sim < config.cannibal_similarity
        or source_facts.page_type != target_facts.page_type
    ):
        return None
    overlap = _title_overlap(source_facts.title, target_facts.title)
    if overlap >= config.cannibal_title_overlap:
        url_a, url_b = sorted((source_url, target_url))
        return CannibalisationPair(
            url_a=url_a,
            url_b=url_b,
            semantic_sim=semantic_sim,
            title_sim=round(overlap, 4),
            reason="near-identical topic and purpose: consolidate or differentiate",
        )
    return None


def within_caps(
    site: SitePriorities, order: NDArray[np.int64], config: ScoringConfig
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(pair indices, ranks) of the pairs kept from ``order`` (best first) within the caps per
    source and per target; the n-th pair kept for a source is its rank n."""
    per_source = [0] * len(site.table.urls)
    per_target = [0] * len(site.table.urls)
    sources, targets = site.table.source.tolist(), site.table.target.tolist()
    kept, ranks = [], []
    for i in order.tolist():
        s, t = sources[i], targets[i]
        if per_source[s] >= config.max_per_source or per_target[t] >= config.max_per_target:
            continue
        per_source[s] += 1
        per_target[t] += 1
        kept.append(i)
        ranks.append(per_source[s])
    return np.array(kept, dtype=np.int64), np.array(ranks, dtype=np.int64)
