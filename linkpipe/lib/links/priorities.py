"""The score of every scorable pair of a site at once, as numpy arrays aligned with the pairs.

score = relevance x (0.7 + 0.3 need) x (1 + 0.25 business value) x direction
x (0.9 + 0.1 source authority), where relevance is the weighted sum of five 0..1 components
(:data:`WEIGHTS` order): semantic similarity mapped from floor..ceiling, the TF-IDF cosine
doubled and capped, the exact-name anchor, the link probability of the target's name in the
source, and link-graph evidence. A site has ~40 candidate rows a page; computed per row in Python
this was most of ``link_opportunities``' time at 10k pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring_config import (
    PageFacts,
    ScoringConfig,
    direction_factor,
    target_need,
)

WEIGHTS = ("w_semantic", "w_lexical", "w_title", "w_mention", "w_graph")
SEMANTIC, GRAPH = 0, 4  # columns of the component matrix


def scorable_pairs(
    candidates: Sequence[CandidatePair], facts: dict[str, PageFacts]
) -> list[CandidatePair]:
    """The candidates between two different pages of ``facts`` (the indexable pages)."""
    return [
        c for c in candidates
        if c.source_url != c.target_url and c.source_url in facts and c.target_url in facts
    ]  # fmt: skip


def component_matrix(config: ScoringConfig, pairs: Sequence[CandidatePair]) -> NDArray[np.float64]:
    """The five relevance components of each pair, one row a pair, in :data:`WEIGHTS` order."""
    raw = np.array(
        [
            (
                p.semantic_sim,
                p.lexical_sim,
                p.title_match,
                p.mention_score,
                p.cocitation,
                p.shared_neighbors,
            )
            for p in pairs
        ],  # fmt: skip
        dtype=np.float64,
    ).reshape(len(pairs), 6)
    span = config.semantic_ceiling - config.semantic_floor
    semantic = np.clip((raw[:, 0] - config.semantic_floor) / span, 0.0, 1.0)
    lexical = np.minimum(1.0, 2 * raw[:, 1])
    graph = np.minimum(1.0, 0.6 * raw[:, 4] + 0.4 * raw[:, 5])
    return np.column_stack([semantic, lexical, raw[:, 2], raw[:, 3], graph])


def relevance_of(config: ScoringConfig, components: NDArray[np.float64]) -> NDArray[np.float64]:
    """The weighted sum of each row's components with ``config``'s weights."""
    total = np.zeros(len(components), dtype=np.float64)
    for column, name in enumerate(WEIGHTS):
        total += getattr(config, name) * components[:, column]
    return total


@dataclass(frozen=True, slots=True)
class Priority:
    """A candidate with its score and the factors of it."""

    score: float
    relevance: float
    graph: float
    need: float
    direction: float
    authority: float
    cand: CandidatePair
    semantic: float  # the semantic component (0..1)


@dataclass(frozen=True)
class SitePriorities:
    """Pairs and their score factors, each array aligned with ``pairs``."""

    pairs: list[CandidatePair]
    components: NDArray[np.float64]
    relevance: NDArray[np.float64]
    need: NDArray[np.float64]
    direction: NDArray[np.float64]
    authority: NDArray[np.float64]
    score: NDArray[np.float64]

    def priority(self, i: int) -> Priority:
        """The ``i``-th pair's :class:`Priority`."""
        return Priority(
            float(self.score[i]), float(self.relevance[i]), float(self.components[i, GRAPH]),
            float(self.need[i]), float(self.direction[i]), float(self.authority[i]),
            self.pairs[i], float(self.components[i, SEMANTIC]),
        )  # fmt: skip


def site_priorities(
    config: ScoringConfig, pairs: list[CandidatePair], facts: dict[str, PageFacts]
) -> SitePriorities:
    """The score and factors of each pair (both ends must be in ``facts``)."""
    components = component_matrix(config, pairs)
    relevance = relevance_of(config, components)
    needs = {url: target_need(f) for url, f in facts.items()}
    kinds: dict[tuple[str, str], float] = {}
    for s in {f.page_type for f in facts.values()}:
        for t in {f.page_type for f in facts.values()}:
            kinds[(s, t)] = direction_factor(config, s, t)
    need = np.array([needs[p.target_url] for p in pairs], dtype=np.float64)
    value = np.array([facts[p.target_url].business_value for p in pairs], dtype=np.float64)
    authority = np.array([facts[p.source_url].link_score for p in pairs], dtype=np.float64) / 100.0
    direction = np.array(
        [kinds[(facts[p.source_url].page_type, facts[p.target_url].page_type)] for p in pairs],
        dtype=np.float64,
    )
    score = relevance * (0.7 + 0.3 * need) * (1 + 0.25 * value) * direction
    score *= 0.9 + 0.1 * authority
    return SitePriorities(pairs, components, relevance, need, direction, authority, score)
