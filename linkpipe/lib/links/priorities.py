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

from linkpipe.lib.links.pair_table import PairTable, as_table
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring_config import (
    PageFacts,
    ScoringConfig,
    direction_factor,
    target_need,
)

WEIGHTS = ("w_semantic", "w_lexical", "w_title", "w_mention", "w_graph")
SEMANTIC, GRAPH = 0, 4  # columns of the component matrix


def component_matrix(
    config: ScoringConfig, pairs: PairTable | Sequence[CandidatePair]
) -> NDArray[np.float64]:
    """The five relevance components of each pair, one row a pair, in :data:`WEIGHTS` order."""
    raw = as_table(pairs).evidence
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


@dataclass(frozen=True)
class SitePriorities:
    """Pairs and their score factors, each array aligned with ``table``."""

    table: PairTable
    semantic: NDArray[np.float64]  # the semantic component
    graph: NDArray[np.float64]  # the graph component
    relevance: NDArray[np.float64]
    need: NDArray[np.float64]
    direction: NDArray[np.float64]
    authority: NDArray[np.float64]
    score: NDArray[np.float64]


def _per_url(
    table: PairTable, facts: dict[str, PageFacts], kinds: list[str]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64]]:
    """(need, business value, authority, index of the page type in ``kinds``) of each URL
    code of ``table``."""
    page = [facts[u] for u in table.urls]
    need = np.array([target_need(f) for f in page], dtype=np.float64)
    value = np.array([f.business_value for f in page], dtype=np.float64)
    authority = np.array([f.link_score for f in page], dtype=np.float64) / 100.0
    kind = np.array([kinds.index(f.page_type) for f in page], dtype=np.int64)
    return need, value, authority, kind


def site_priorities(
    config: ScoringConfig, table: PairTable, facts: dict[str, PageFacts]
) -> SitePriorities:
    """The score and factors of each pair (every URL of ``table`` must be in ``facts``)."""
    components = component_matrix(config, table)
    relevance = relevance_of(config, components)
    kinds = sorted({f.page_type for f in facts.values()})
    factor = np.array([[direction_factor(config, s, t) for t in kinds] for s in kinds])
    url_need, url_value, url_authority, url_kind = _per_url(table, facts, kinds)
    src, tgt = table.source, table.target
    need, value, authority = url_need[tgt], url_value[tgt], url_authority[src]
    direction = factor.reshape(len(kinds), len(kinds))[url_kind[src], url_kind[tgt]]
    score = relevance * (0.7 + 0.3 * need) * (1 + 0.25 * value) * direction
    score *= 0.9 + 0.1 * authority
    return SitePriorities(
        table, components[:, SEMANTIC], components[:, GRAPH], relevance, need, direction,
        authority, score,
    )  # fmt: skip
