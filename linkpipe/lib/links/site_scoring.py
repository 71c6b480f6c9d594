"""Scoring a whole crawl: the site's own weights (see :mod:`weights`), then the opportunities."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from linkpipe.lib.links.pair_table import PairTable, as_table
from linkpipe.lib.links.rows import CandidatePair, CannibalisationPair, LinkOpportunity
from linkpipe.lib.links.scoring import score_opportunities
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.links.weights import WeightFit, default_fit, fit_site_weights


@dataclass(frozen=True, slots=True)
class SiteScores:
    """A crawl's opportunity and cannibalisation rows and the weights they were scored with."""

    opportunities: list[LinkOpportunity]
    cannibalisation: list[CannibalisationPair]
    weights: WeightFit


def site_weights(
    config: ScoringConfig, candidates: PairTable, facts: dict[str, PageFacts]
) -> WeightFit:
    """The weights of this site: learned from its labelled pairs between pages that can be
    suggested (``candidates``: already those, see :meth:`PairTable.scorable`), or the
    configured ones."""
    if not config.learn_weights:
        return default_fit(config, "defaults: learning is off ([scoring] learn_weights = false)")
    return fit_site_weights(config, candidates, config.min_linked_pairs)


def score_site(
    candidates: PairTable | Sequence[CandidatePair],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
) -> SiteScores:
    """Fit the site's weights, then score, cap and explain its candidates with them."""
    config = config or ScoringConfig()
    table = as_table(candidates).scorable(set(facts))  # score_opportunities keeps it whole
    fit = site_weights(config, table, facts)
    rows, cannibal = score_opportunities(table, facts, decisions, fit.apply(config))
    return SiteScores(rows, cannibal, fit)
