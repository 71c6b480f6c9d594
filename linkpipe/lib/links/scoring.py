"""From candidate pairs to link opportunities: filters, priority, caps, anchors and reasons.

score = relevance x need_factor x value_factor x direction_factor x authority_factor, where
relevance is a weighted sum of semantic similarity, TF-IDF similarity, an exact-name anchor, the
link probability of the target's name in the source (see mentions) and link-graph evidence
(each in 0..1). The weights and thresholds live in :class:`ScoringConfig` and are documented in
docs/architecture.md.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from linkpipe.lib.links.anchors import AnchorChoice, AnchorLedger
from linkpipe.lib.links.calibration import Calibration, calibrate
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
    max_same_anchor_per_target: int = 2  # uses of one found phrase per target; names unlimited
    learn_weights: bool = True  # fit the w_* on the site's own links (see links/weights.py)
    min_linked_pairs: int = 50  # labelled pairs of each class a fit needs, else the w_* above
    learned_share: float = 0.5  # of the weights used, the share fitted (the rest: the w_* above)
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


def relevance_components(config: ScoringConfig, cand: CandidatePair) -> tuple[float, ...]:
    """The five 0..1 inputs of relevance, in weight order: semantic (similarity mapped from
    floor..ceiling), lexical (TF-IDF cosine doubled, capped), title, mention, graph."""
    span = config.semantic_ceiling - config.semantic_floor
    sem = min(1.0, max(0.0, (cand.semantic_sim - config.semantic_floor) / span))
    graph = min(1.0, 0.6 * cand.cocitation + 0.4 * cand.shared_neighbors)
    lexical = min(1.0, 2 * cand.lexical_sim)
    return sem, lexical, cand.title_match, cand.mention_score, graph


def relevance(config: ScoringConfig, cand: CandidatePair) -> tuple[float, float]:
    """(relevance, graph score) of a candidate."""
    sem, lexical, title, mention, graph = relevance_components(config, cand)
    rel = (
        config.w_semantic * sem
        + config.w_lexical * lexical
        + config.w_title * title
        + config.w_mention * mention
        + config.w_graph * graph
    )
    return rel, graph


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


def reason_evidence(
    config: ScoringConfig, cand: CandidatePair, anchor: AnchorChoice | None, target: PageFacts
) -> list[tuple[float, str]]:
    """(strength, clause) of each piece of evidence for the pair, strongest first.

    A strength is the piece's share of the score: its weighted relevance component, or for the
    target's need and business value the part of the score their factors add."""
    rel, graph = relevance(config, cand)
    span = config.semantic_ceiling - config.semantic_floor
    sem = min(1.0, max(0.0, (cand.semantic_sim - config.semantic_floor) / span))
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
) -> str:
    """One sentence of at most :data:`MAX_REASON_WORDS` words, strongest evidence first, e.g.
    'Names "Layers Dialog" (linked by 8 of 19 pages that mention it); closely related topic;
    target is an orphan.'"""
    config = config or ScoringConfig()
    tail = [] if anchor is not None and anchor.anchor_text else ["no sentence fits yet: add one"]
    budget = MAX_REASON_WORDS - sum(len(t.split()) for t in tail)
    kept: list[str] = []
    for _, clause in reason_evidence(config, cand, anchor, target):
        words = len(clause.split())
        if words <= budget:
            kept.append(clause)
            budget -= words
    clauses = (kept or ["semantically close pages"]) + tail
    text = "; ".join(clauses)
    return text[0].upper() + text[1:] + "."


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
    rows = place_opportunities(scored, facts, decisions, config)
    calibration = site_calibration(config, candidates, facts, [r.score for r in rows])
    rows = [replace(r, confidence=calibration.confidence(r.score)) for r in rows]
    return rows, list(cannibal.values())


def site_calibration(
    config: ScoringConfig,
    candidates: list[CandidatePair],
    facts: dict[str, PageFacts],
    suggested: list[float],
) -> Calibration:
    """Score -> confidence fitted on every candidate of the site, those linked in content being
    the positives, else the percentile among the ``suggested`` scores (see
    :func:`linkpipe.lib.links.calibration.calibrate`)."""
    scores: list[float] = []
    labels: list[bool] = []
    for cand in candidates:
        s, t = cand.source_url, cand.target_url
        if s != t and s in facts and t in facts:
            scores.append(priority_of(config, cand, facts[s], facts[t]).score)
            labels.append(cand.already_linked_content)
    return calibrate(scores, labels, suggested)


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
    """The candidate's score, None when it is not relevant enough."""
    priority = priority_of(config, cand, source, target)
    return priority if priority.relevance >= config.min_relevance else None


def priority_of(
    config: ScoringConfig, cand: CandidatePair, source: PageFacts, target: PageFacts
) -> Priority:
    """The candidate's score and its factors:
    score = relevance x need x business value x direction x source authority."""
    rel, graph = relevance(config, cand)
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
        reason = build_reason(priority.cand, anchor, facts[t], config)
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
