"""From candidate pairs to link opportunities: filters, priority, caps, anchors and reasons.

score = relevance x need_factor x value_factor x direction_factor x authority_factor, where
relevance is a weighted sum of semantic similarity, TF-IDF similarity, an exact-name anchor, the
link probability of the target's name in the source (see mentions) and link-graph evidence
(each in 0..1). The weights and thresholds live in :class:`ScoringConfig` and are documented in
docs/architecture.md.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

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


def relevance(config: ScoringConfig, cand: dict[str, Any]) -> tuple[float, float]:
    """(relevance, graph score) of a candidate."""
    span = config.semantic_ceiling - config.semantic_floor
    sem = min(1.0, max(0.0, (cand["semantic_sim"] - config.semantic_floor) / span))
    graph = min(1.0, 0.6 * cand["cocitation"] + 0.4 * cand["shared_neighbors"])
    rel = (
        config.w_semantic * sem
        + config.w_lexical * min(1.0, 2 * cand["lexical_sim"])
        + config.w_title * cand["title_match"]
        + config.w_mention * (cand.get("mention_score") or 0.0)
        + config.w_graph * graph
    )
    return rel, graph


def _title_overlap(a: str, b: str) -> float:
    ka, kb = set(phrase_key(a)), set(phrase_key(b))
    return len(ka & kb) / len(ka | kb) if ka and kb else 0.0


def _describe(facts: PageFacts) -> str:
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


def build_reason(cand: dict[str, Any], source: PageFacts, target: PageFacts) -> str:
    """One plain-language line built from the pair's evidence."""
    parts = [f'target is {_describe(target)} on "{target.title or cand["target_url"]}"']
    if target.click_depth and target.click_depth > 3 and not target.is_orphan:
        parts[0] += f" ({target.click_depth} clicks deep)"
    if cand.get("anchor_text"):
        if cand["anchor_source"] in ("title", "h1", "slug"):
            parts.append(f'this sentence already names it ("{cand["anchor_text"]}")')
        elif cand["anchor_source"] == "known_anchor":
            parts.append(
                f'other pages link to it as "{cand["anchor_text"]}", which this sentence uses'
            )
        else:
            parts.append(f'this paragraph is about "{cand["anchor_text"]}"')
    else:
        parts.append("no sentence fits yet: add one")
    if cand.get("mention_links"):
        parts.append(
            f'it mentions "{cand["mention_phrase"]}", and {cand["mention_links"]} of the '
            f"{cand['mention_pages']} other pages that do link to the target"
        )
    parts.append(f"semantic similarity {cand['semantic_sim']:.2f}")
    if cand["cocitation"] > 0:
        parts.append("often linked from the same pages")
    if target.business_value > 0:
        parts.append("target is " + ", ".join(target.value_notes or ["valuable to the business"]))
    parts.append("no content link between them")
    return "; ".join(parts)


def score_opportunities(
    candidates: list[dict[str, Any]],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(opportunity rows, cannibalisation rows) from every shard's candidate rows."""
    config = config or ScoringConfig()
    decisions = decisions or {}
    scored, cannibal = [], {}
    for cand in candidates:
        s, t = cand["source_url"], cand["target_url"]
        if s == t or cand["already_linked_content"] or s not in facts or t not in facts:
            continue
        if decisions.get((s, t)) == "rejected":
            continue
        fs, ft = facts[s], facts[t]
        if (
            cand["semantic_sim"] >= config.cannibal_similarity
            and fs.page_type == ft.page_type
            and _title_overlap(fs.title, ft.title) >= config.cannibal_title_overlap
        ):
            key = tuple(sorted((s, t)))
            cannibal[key] = {
                "url_a": key[0],
                "url_b": key[1],
                "semantic_sim": cand["semantic_sim"],
                "title_sim": round(_title_overlap(fs.title, ft.title), 4),
                "reason": "near-identical topic and purpose: consolidate or differentiate",
            }
            continue
        rel, graph = relevance(config, cand)
        if rel < config.min_relevance:
            continue
        need = target_need(ft)
        direction = direction_factor(config, fs.page_type, ft.page_type)
        authority = fs.link_score / 100.0
        score = rel * (0.7 + 0.3 * need) * (1 + 0.25 * ft.business_value) * direction
        score *= 0.9 + 0.1 * authority
        scored.append((score, rel, graph, need, direction, authority, cand))
    scored.sort(key=lambda x: (-x[0], x[6]["source_url"], x[6]["target_url"]))
    per_source: dict[str, int] = defaultdict(int)
    per_target: dict[str, int] = defaultdict(int)
    used_anchor: dict[str, dict[str, str]] = defaultdict(dict)  # source -> anchor -> target
    anchor_uses: dict[tuple[str, str], int] = defaultdict(int)  # (target, anchor) -> count
    used_spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    rows = []
    for score, rel, graph, need, direction, authority, cand in scored:
        s, t = cand["source_url"], cand["target_url"]
        if per_source[s] >= config.max_per_source or per_target[t] >= config.max_per_target:
            continue
        placement = _pick_anchor(cand, used_anchor[s], anchor_uses, used_spans[s], config)
        per_source[s] += 1
        per_target[t] += 1
        row = {
            "source_url": s,
            "target_url": t,
            "score": round(score, 6),
            "relevance": round(rel, 6),
            "semantic_sim": cand["semantic_sim"],
            "lexical_sim": cand["lexical_sim"],
            "title_match": cand["title_match"],
            "mention_score": cand.get("mention_score") or 0.0,
            "mention_phrase": cand.get("mention_phrase"),
            "graph_score": round(graph, 6),
            "target_need": need,
            "business_value": facts[t].business_value,
            "source_authority": round(authority, 6),
            "direction_factor": direction,
            "source_type": facts[s].page_type,
            "target_type": facts[t].page_type,
            "decision": decisions.get((s, t)),
            **placement,
        }
        row["reason"] = build_reason({**cand, **placement}, facts[s], facts[t])
        rows.append(row)
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source_url"]].append(row)
    for group in by_source.values():
        for rank, row in enumerate(sorted(group, key=lambda r: -r["score"]), start=1):
            row["rank"] = rank
    return rows, list(cannibal.values())


def _pick_anchor(
    cand: dict[str, Any],
    used_here: dict[str, str],
    anchor_uses: dict[tuple[str, str], int],
    spans: list[tuple[int, int]],
    config: ScoringConfig,
) -> dict[str, Any]:
    """The first anchor choice not used for another target here, not overused for this target,
    and not overlapping an anchor already placed on this page."""
    options = []
    if cand.get("anchor_text"):
        options.append(
            {
                "anchor_text": cand["anchor_text"],
                "start": cand["anchor_start"],
                "end": cand["anchor_end"],
                "sentence": cand["sentence"],
                "paragraph_idx": cand["paragraph_idx"],
                "source_kind": cand["anchor_source"],
            }
        )
    alts = cand.get("anchor_alternatives") or "[]"
    options += json.loads(alts) if isinstance(alts, str) else alts
    target = cand["target_url"]
    for opt in options:
        key = opt["anchor_text"].lower()
        if used_here.get(key, target) != target:
            continue
        if anchor_uses[(target, key)] >= config.max_same_anchor_per_target:
            continue
        if any(opt["start"] < e and s < opt["end"] for s, e in spans):
            continue
        used_here[key] = target
        anchor_uses[(target, key)] += 1
        spans.append((opt["start"], opt["end"]))
        return {
            "anchor_text": opt["anchor_text"],
            "anchor_start": opt["start"],
            "anchor_end": opt["end"],
            "sentence": opt["sentence"],
            "paragraph_idx": opt["paragraph_idx"],
            "placement": "in_sentence",
            "anchor_source": opt["source_kind"],
        }
    return {
        "anchor_text": None,
        "anchor_start": None,
        "anchor_end": None,
        "sentence": None,
        "paragraph_idx": None,
        "placement": "needs_new_sentence",
        "anchor_source": "none",
    }
