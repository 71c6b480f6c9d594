"""Scoring a whole crawl: the site's own weights (see :mod:`weights`), then the opportunities."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from linkpipe.lib.links.opportunity_batches import (
    OPPORTUNITY_BATCH,
    Placer,
    opportunity_batches,
)
from linkpipe.lib.links.pair_table import PairTable, as_table
from linkpipe.lib.links.rows import (
    CandidatePair,
    CannibalisationPair,
    LinkOpportunity,
    OpportunityBatch,
)
from linkpipe.lib.links.scoring import Selection, select_opportunities
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.links.weights import WeightFit, default_fit, fit_site_weights


@dataclass(frozen=True)
class SiteScores:
    """A crawl's kept pairs (see :class:`~linkpipe.lib.links.scoring.Selection`) and the
    weights they were scored with; their rows are made batch by batch (:meth:`batches`: a
    crawl's stage writes them so) or all at once (:attr:`opportunities`)."""

    selection: Selection
    weights: WeightFit
    facts: dict[str, PageFacts]
    decisions: dict[tuple[str, str], str]
    config: ScoringConfig  # with the site's weights applied
    placer: Placer | None = None  # places the kept pairs' windows (see opportunity_batches)

    @property
    def cannibalisation(self) -> list[CannibalisationPair]:
        """The near-twin pairs found among the candidates."""
        return self.selection.cannibalisation

    def batches(self, size: int = OPPORTUNITY_BATCH) -> Iterator[OpportunityBatch]:
        """The opportunity rows, best first, ``size`` at a time (as columns)."""
        return opportunity_batches(
            self.selection, self.facts, self.decisions, self.config, size, self.placer
        )

    @cached_property
    def opportunities(self) -> list[LinkOpportunity]:
        """Every opportunity row, best first (evaluation, tests: the rows fit in memory)."""
        return [row for batch in self.batches() for row in batch]


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
    placer: Placer | None = None,
) -> SiteScores:
    """Fit the site's weights, then score and cap its candidates with them (the rows, with
    anchors (their windows placed by ``placer``) and reasons, are made when asked for)."""
    config = config or ScoringConfig()
    decisions = decisions or {}
    table = as_table(candidates).scorable(set(facts))  # select_opportunities keeps it whole
    fit = site_weights(config, table, facts)
    applied = fit.apply(config)
    selection = select_opportunities(table, facts, decisions, applied)
    return SiteScores(selection, fit, facts, decisions, applied, placer)
