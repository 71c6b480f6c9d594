"""Scoring a whole crawl: the site's own weights (see :mod:`weights`), then the opportunities."""

from __future__ import annotations

from dataclasses import dataclass

from linkpipe.lib.links.priorities import scorable_pairs
from linkpipe.lib.links.rows import CandidatePair, CannibalisationPair, LinkOpportunity
from linkpipe.lib.links.scoring import Placements, own_placements, score_opportunities
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.links.weights import WeightFit, default_fit, fit_site_weights


@dataclass(frozen=True, slots=True)
class SiteScores:
    """A crawl's opportunity and cannibalisation rows and the weights they were scored with."""

    opportunities: list[LinkOpportunity]
    cannibalisation: list[CannibalisationPair]
    weights: WeightFit


def site_weights(
    config: ScoringConfig, candidates: list[CandidatePair], facts: dict[str, PageFacts]
) -> WeightFit:
    """The weights of this site: learned from its labelled pairs between pages that can be
    suggested (both indexable, not the same page), or the configured ones."""
    if not config.learn_weights:
        return default_fit(config, "defaults: learning is off ([scoring] learn_weights = false)")
    return fit_site_weights(config, scorable_pairs(candidates, facts), config.min_linked_pairs)


def score_site(
    candidates: list[CandidatePair],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
    placements: Placements = own_placements,
) -> SiteScores:
    """Fit the site's weights, then score, cap and explain its candidates with them
    (``placements``: see :func:`~linkpipe.lib.links.scoring.score_opportunities`)."""
    config = config or ScoringConfig()
    fit = site_weights(config, candidates, facts)
    rows, cannibal = score_opportunities(
        candidates, facts, decisions, fit.apply(config), placements
    )
    return SiteScores(rows, cannibal, fit)
