"""What scoring is configured with and knows of each page: :class:`ScoringConfig` (weights,
thresholds, caps, documented in docs/architecture.md) and :class:`PageFacts`, with the two
per-page factors of the score (a target's need, the direction between page types)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    has_prose: bool = True  # a sentence of its main text can hold a link (not code alone)
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
