"""From candidate pairs to link opportunities: filters, priority, caps, anchors and reasons.

score = relevance x need_factor x value_factor x direction_factor x authority_factor, where
relevance is a weighted sum of semantic similarity, TF-IDF similarity, an exact-name anchor, the
link probability of the target's name in the source (see mentions) and link-graph evidence
(each in 0..1). The weights and thresholds live in :class:`ScoringConfig` and are documented in
docs/architecture.md.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from linkpipe.lib.links.anchors import AnchorChoice, AnchorLedger
from linkpipe.lib.links.rows import CandidatePair, CannibalisationPair, LinkOpportunity
from linkpipe.lib.text.lexical import phrase_key

INFORMATIONAL = {"blog", "guide", "glossary", "page", "home"}


@dataclass
class ScoringConfig:
    """Weights, thresholds and caps of opportunity scoring."""

    # Relevance weights (sum 1), tuned with `linkpipe eval` on GIMP help and Django docs.
    w_semantic: float = 0.28
    w_lexical: float = 0.19
    w_title: float = 0.12
    w_mention: float = 0.35
    w_graph: float = 0.06
    semantic_floor: float = 0.25  # similarity mapped to 0 relevance
    semantic_ceiling: float = 0.85  # similarity mapped to 1
    min_relevance: float = 0.16
    max_per_source: int = 5
    max_per_target: int = 10
    max_same_anchor_per_target: int = 2
    cannibal_similarity: float = 0.92
    cannibal_title_overlap: float = 0.5
    direction: dict[tuple[str, str], float] = field(
        default_factory=lambda: {
            ("glossary", "glossary"): 0.8,
            ("glossary", "*"): 0.6,  # glossary entries take links more than they give
            ("commercial", "blog"): 0.7,  # commercial pages linking out to articles: penalised
            ("commercial", "guide"): 0.8,
            ("*", "commercial"): 1.15,  # informational -> commercial: favoured
            ("*", "glossary"): 1.05,
            ("*", "home"): 0.5,  # the home page is reached through navigation already
        }
    )


@dataclass
class PageFacts:
    """What scoring needs to know about a page."""

    title: str = ""
    page_type: str = "page"
    content_inlinks: int = 0
    click_depth: int | None = None
    link_score: float = 0.0
    is_orphan: bool = False
    is_deep: bool = False
    business_value: float = 0.0  # 0..1 from imports (clicks, conversions, priority lists)
    value_notes: list[str] = field(default_factory=list)  # why it has that value, in words


def direction_factor(config: ScoringConfig, source_type: str, target_type: str) -> float:
    """Multiplier for linking from a page of one type to another."""
    for key in ((source_type, target_type), (source_type, "*"), ("*", target_type)):
        if key in config.direction:
            return config.direction[key]
    return 1.0


def target_need(facts: PageFacts) -> float:
    """0..1: how much the target needs links (orphan, deep, few content inlinks, low rank)."""
    few_inlinks = 1.0 / (1.0 + facts.content_inlinks)
    return round(
        0.35 * facts.is_orphan
        + 0.20 * facts.is_deep
        + 0.30 * few_inlinks
        + 0.15 * (1.0 - facts.link_score / 100.0),
        6,
    )


def relevance(config: ScoringConfig, cand: CandidatePair) -> tuple[float, float]:
    """(relevance, graph score) of a candidate."""
    span = config.semantic_ceiling - config.semantic_floor
    sem = min(1.0, max(0.0, (cand.semantic_sim - config.semantic_floor) / span))
    graph = min(1.0, 0.6 * cand.cocitation + 0.4 * cand.shared_neighbors)
    rel = (
        config.w_semantic * sem
        + config.w_lexical * min(1.0, 2 * cand.lexical_sim)
        + config.w_title * cand.title_match
        + config.w_mention * cand.mention_score
        + config.w_graph * graph
    )
    return rel, graph


def _title_overlap(a: str, b: str) -> float:
    """Jaccard of the stemmed words of two titles."""
    ka, kb = set(phrase_key(a)), set(phrase_key(b))
    return len(ka & kb) / len(ka | kb) if ka and kb else 0.0


def _describe(facts: PageFacts) -> str:
    """The target in a few words: "an orphan guide", "a deep post", "an underlinked page"."""
    need = []
    if facts.is_orphan:
        need.append("an orphan")
    elif facts.click_depth is None or facts.click_depth > 3:
        need.append("a deep" if facts.click_depth else "an unreachable")
    elif facts.content_inlinks <= 1:
        need.append("an underlinked")
    kind = {"blog": "post", "glossary": "glossary entry", "commercial": "commercial page"}
    noun = kind.get(facts.page_type, facts.page_type if facts.page_type != "page" else "page")
    return f"{need[0] if need else 'a'} {noun}".replace("a orphan", "an orphan")


def _anchor_reason(anchor: AnchorChoice | None) -> str:
    """Why the anchor placed (or its absence) fits, in words."""
    if anchor is None or not anchor.anchor_text:
        return "no sentence fits yet: add one"
    if anchor.source_kind in ("title", "h1", "slug"):
        return f'this sentence already names it ("{anchor.anchor_text}")'
    if anchor.source_kind == "known_anchor":
        return f'other pages link to it as "{anchor.anchor_text}", which this sentence uses'
    return f'this paragraph is about "{anchor.anchor_text}"'


def build_reason(
    cand: CandidatePair, anchor: AnchorChoice | None, source: PageFacts, target: PageFacts
) -> str:
    """One plain-language line built from the pair's evidence and the anchor placed."""
    parts = [f'target is {_describe(target)} on "{target.title or cand.target_url}"']
    if target.click_depth and target.click_depth > 3 and not target.is_orphan:
        parts[0] += f" ({target.click_depth} clicks deep)"
    parts.append(_anchor_reason(anchor))
    if cand.mention_links:
        parts.append(
            f'it mentions "{cand.mention_phrase}", and {cand.mention_links} of the '
            f"{cand.mention_pages} other pages that do link to the target"
        )
    parts.append(f"semantic similarity {cand.semantic_sim:.2f}")
    if cand.cocitation > 0:
        parts.append("often linked from the same pages")
    if target.business_value > 0:
        parts.append("target is " + ", ".join(target.value_notes or ["valuable to the business"]))
    parts.append("no content link between them")
    return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Priority:
    """A candidate that passed the filters, with its score and the factors of it."""

    score: float
    relevance: float
    graph: float
    need: float
    direction: float
    authority: float
    cand: CandidatePair


def score_opportunities(
    candidates: list[CandidatePair],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
) -> tuple[list[LinkOpportunity], list[CannibalisationPair]]:
    """(opportunity rows, cannibalisation rows) from every shard's candidate rows."""
    config = config or ScoringConfig()
    decisions = decisions or {}
    scored: list[Priority] = []
    cannibal: dict[tuple[str, str], CannibalisationPair] = {}
    for cand in candidates:
        s, t = cand.source_url, cand.target_url
        if s == t or cand.already_linked_content or s not in facts or t not in facts:
            continue
        if decisions.get((s, t)) == "rejected":
            continue
        twin = cannibalisation(config, cand, facts[s], facts[t])
        if twin is not None:
            cannibal[(twin.url_a, twin.url_b)] = twin
            continue
        priority = prioritise(config, cand, facts[s], facts[t])
        if priority is not None:
            scored.append(priority)
    scored.sort(key=lambda p: (-p.score, p.cand.source_url, p.cand.target_url))
    return place_opportunities(scored, facts, decisions, config), list(cannibal.values())


def cannibalisation(
    config: ScoringConfig, cand: CandidatePair, source: PageFacts, target: PageFacts
) -> CannibalisationPair | None:
    """The pair as cannibalisation when the two pages are near-identical in topic and purpose."""
    if (
        cand.semantic_sim >= config.cannibal_similarity
        and source.page_type == target.page_type
        and _title_overlap(source.title, target.title) >= config.cannibal_title_overlap
    ):
        url_a, url_b = sorted((cand.source_url, cand.target_url))
        return CannibalisationPair(
            url_a=url_a,
            url_b=url_b,
            semantic_sim=cand.semantic_sim,
            title_sim=round(_title_overlap(source.title, target.title), 4),
            reason="near-identical topic and purpose: consolidate or differentiate",
        )
    return None


def prioritise(
    config: ScoringConfig, cand: CandidatePair, source: PageFacts, target: PageFacts
) -> Priority | None:
    """The candidate's score, None when it is not relevant enough.

    score = relevance x need x business value x direction x source authority."""
    rel, graph = relevance(config, cand)
    if rel < config.min_relevance:
        return None
    need = target_need(target)
    direction = direction_factor(config, source.page_type, target.page_type)
    authority = source.link_score / 100.0
    score = rel * (0.7 + 0.3 * need) * (1 + 0.25 * target.business_value) * direction
    score *= 0.9 + 0.1 * authority
    return Priority(score, rel, graph, need, direction, authority, cand)


def place_opportunities(
    scored: list[Priority],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str],
    config: ScoringConfig,
) -> list[LinkOpportunity]:
    """Opportunity rows from candidates best first, within the caps, with their anchors.

    ``scored`` is sorted by descending score, so the n-th row kept for a source is its rank n."""
    per_source: dict[str, int] = defaultdict(int)
    per_target: dict[str, int] = defaultdict(int)
    ledger = AnchorLedger(config.max_same_anchor_per_target)
    rows = []
    for priority in scored:
        s, t = priority.cand.source_url, priority.cand.target_url
        if per_source[s] >= config.max_per_source or per_target[t] >= config.max_per_target:
            continue
        anchor = ledger.pick(s, t, priority.cand.anchors)
        per_source[s] += 1
        per_target[t] += 1
        reason = build_reason(priority.cand, anchor, facts[s], facts[t])
        rows.append(
            opportunity(priority, per_source[s], facts, decisions.get((s, t)), anchor, reason)
        )
    return rows


def opportunity(
    priority: Priority,
    rank: int,
    facts: dict[str, PageFacts],
    decision: str | None,
    anchor: AnchorChoice | None,
    reason: str,
) -> LinkOpportunity:
    """The ``link_opportunities`` row of a kept candidate."""
    cand = priority.cand
    source, target = facts[cand.source_url], facts[cand.target_url]
    return LinkOpportunity(
        source_url=cand.source_url,
        target_url=cand.target_url,
        rank=rank,
        score=round(priority.score, 6),
        relevance=round(priority.relevance, 6),
        semantic_sim=cand.semantic_sim,
        lexical_sim=cand.lexical_sim,
        title_match=cand.title_match,
        mention_score=cand.mention_score,
        mention_phrase=cand.mention_phrase,
        graph_score=round(priority.graph, 6),
        target_need=priority.need,
        business_value=target.business_value,
        source_authority=round(priority.authority, 6),
        direction_factor=priority.direction,
        source_type=source.page_type,
        target_type=target.page_type,
        anchor_text=anchor.anchor_text if anchor else None,
        sentence=anchor.sentence if anchor else None,
        anchor_start=anchor.start if anchor else None,
        anchor_end=anchor.end if anchor else None,
        paragraph_idx=anchor.paragraph_idx if anchor else None,
        placement="in_sentence" if anchor else "needs_new_sentence",
        decision=decision,
        reason=reason,
    )
