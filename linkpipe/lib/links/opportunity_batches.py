"""The rows of the pairs scoring keeps, a batch at a time and column by column.

The kept pairs' numbers (score, relevance, graph component, need, direction, authority) are
sliced from the site's arrays a batch at a time; only the anchor (one ledger over every batch,
a source's pairs placed together), the reason and the calibrated confidence are made pair by
pair. A row object is made only when a reader asks for one
(:class:`~linkpipe.lib.links.rows.OpportunityBatch`): at 1M pages a crawl keeps ~5M rows, and
a row object each cost about a third of scoring's time.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.links.anchor_ledger import AnchorLedger, complete
from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.pair_table import PairTable
from linkpipe.lib.links.rows import (
    OPPORTUNITY_COLUMNS,
    CandidatePair,
    CannibalisationPair,
    LinkOpportunity,
    OpportunityBatch,
)
from linkpipe.lib.links.scoring import Selection, build_reason, rounded, select_opportunities
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig

# Kept pairs whose full rows (placements) are read and explained at once: memory holds one
# batch of candidate and opportunity rows, whatever the number of pairs kept.
OPPORTUNITY_BATCH = 20_000
# Batches of kept pairs: (position of the first, the pairs of whole sources, in order).
Batches = Iterator[tuple[int, list[CandidatePair]]]


class Placer(Protocol):
    """Places the windows of the batches' pairs (the same batches, in order) before the ledger
    picks their anchors: the candidate step placed their names only (see links/placement.py).
    A pair may get the first of its placements only (a
    :class:`~linkpipe.lib.links.anchor_ledger.Prefix`); :meth:`place_fully` places every one."""

    def __call__(self, batches: Batches) -> Batches: ...

    def place_fully(
        self, pairs: list[CandidatePair], short: set[tuple[str, str]]
    ) -> list[CandidatePair]:
        """``pairs``, those of the (source, target) in ``short`` with every placement."""
        ...


@dataclass(frozen=True)
class KeptBatch:
    """A batch of kept pairs: their indices in the scored table, their ranks on their
    source, their stored scores, their full candidate rows and the anchors the ledger picked,
    all in order."""

    index: NDArray[np.int64]
    ranks: list[int]
    scores: list[float]
    pairs: list[CandidatePair]
    anchors: list[AnchorChoice | None]


def opportunity_batches(
    selection: Selection,
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
    size: int = OPPORTUNITY_BATCH,
    placer: Placer | None = None,
) -> Iterator[OpportunityBatch]:
    """The opportunity rows of the kept pairs, a source's pairs together (best first) and the
    sources in the order of their best pair (:func:`ledger_order`), about ``size`` at a time
    (whole sources): each batch's full candidate rows are read (the caps do not depend on
    them), their windows placed by ``placer`` (without: the rows' placements as stored), its
    anchors picked by one :class:`~linkpipe.lib.links.anchor_ledger.AnchorLedger` that runs
    over every batch, source by source, and its reasons written."""
    config = config or ScoringConfig()
    ledger = AnchorLedger(config.max_same_anchor_per_target)
    order = ledger_order(selection)
    index, ranks = selection.kept[order], selection.ranks[order]
    sources = selection.site.table.source[index]
    batches = whole_sources(selection.site.table.pairs(index, size), sources)
    for start, placed in placer(batches) if placer is not None else batches:
        pairs, anchors = _settle(ledger, placed, placer)
        batch = slice(start, start + len(pairs))
        scores = [selection.scores[i] for i in order[batch].tolist()]
        kept = KeptBatch(index[batch], ranks[batch].tolist(), scores, pairs, anchors)
        columns = batch_columns(selection, kept, facts, decisions or {}, config)
        yield OpportunityBatch({name: columns[name] for name in OPPORTUNITY_COLUMNS})


def ledger_order(selection: Selection) -> NDArray[np.int64]:
    """Positions of ``selection.kept`` with each source's pairs together, best first, and the
    sources in the order of their best pair: the anchor ledger sees every pair of a page at
    once, and the best pages still come first for what sources share (a target's limit on
    one found phrase)."""
    count = len(selection.kept)
    position = np.arange(count, dtype=np.int64)
    if not count:
        return position
    source = selection.site.table.source[selection.kept]
    first = np.full(int(source.max()) + 1, count, dtype=np.int64)
    np.minimum.at(first, source, position)
    order: NDArray[np.int64] = np.lexsort((position, first[source]))
    return order


def whole_sources(rows: Iterator[list[CandidatePair]], sources: NDArray[np.int32]) -> Batches:
    """(position of the first, rows) of ``rows``' batches regrouped so that a source's rows
    (consecutive, ``sources`` giving each row's source) are never split between two."""
    start, held = 0, []
    for batch in rows:
        held += batch
        end = start + len(held)
        cut = len(held)
        if end < len(sources):  # the last source may go on in the next batch
            while cut > 0 and sources[start + cut - 1] == sources[end]:
                cut -= 1
        if cut:
            yield start, held[:cut]
            start, held = start + cut, held[cut:]
    if held:
        yield start, held


def _settle(
    ledger: AnchorLedger, pairs: list[CandidatePair], placer: Placer | None
) -> tuple[list[CandidatePair], list[AnchorChoice | None]]:
    """The batch's pairs and the anchor the ledger picks for each: when it looks past a pair's
    prefix of placements, the batch is undone, those pairs placed fully and the batch placed
    again (each round completes at least one pair: the anchors are those of full lists)."""
    while True:
        anchors = _place(ledger, pairs)
        if not ledger.short:
            ledger.commit()
            return pairs, anchors
        short = set(ledger.short)
        ledger.rollback()
        if placer is None:  # only a placer makes prefixes
            raise RuntimeError(f"placements cut short without a placer: {sorted(short)[:3]}")
        pairs = placer.place_fully(pairs, short)
        if any(not complete(p.anchors) for p in pairs if (p.source_url, p.target_url) in short):
            raise RuntimeError("the placer left a pair's placements cut short")


def _place(ledger: AnchorLedger, pairs: list[CandidatePair]) -> list[AnchorChoice | None]:
    """The anchor of each pair (consecutive pairs of a source placed together)."""
    anchors: list[AnchorChoice | None] = []
    start = 0
    for end in range(1, len(pairs) + 1):
        if end == len(pairs) or pairs[end].source_url != pairs[start].source_url:
            group = [(c.target_url, c.anchors) for c in pairs[start:end]]
            anchors += ledger.place_source(pairs[start].source_url, group)
            start = end
    return anchors


def score_opportunities(
    candidates: PairTable | Sequence[CandidatePair],
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str] | None = None,
    config: ScoringConfig | None = None,
) -> tuple[list[LinkOpportunity], list[CannibalisationPair]]:
    """(opportunity rows, cannibalisation rows) of
    :func:`~linkpipe.lib.links.scoring.select_opportunities` with every row at once
    (:func:`opportunity_batches` gives them batch by batch)."""
    selection = select_opportunities(candidates, facts, decisions, config)
    batches = opportunity_batches(selection, facts, decisions, config)
    return [row for batch in batches for row in batch], selection.cannibalisation


def batch_columns(
    selection: Selection,
    kept: KeptBatch,
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str],
    config: ScoringConfig,
) -> dict[str, list[Any]]:
    """The ``link_opportunities`` columns of one batch of kept pairs."""
    site, i, pairs, score = selection.site, kept.index, kept.pairs, kept.scores
    src, tgt = [c.source_url for c in pairs], [c.target_url for c in pairs]
    relevance, semantic, graph = (site.relevance[i], site.semantic[i], site.graph[i])
    parts = zip(relevance.tolist(), semantic.tolist(), graph.tolist(), strict=True)
    reasons = [
        build_reason(c, a, facts[t], config, p)
        for c, a, t, p in zip(pairs, kept.anchors, tgt, parts, strict=True)
    ]
    return {
        "source_url": src,
        "target_url": tgt,
        "rank": kept.ranks,
        "score": score,
        "relevance": rounded(relevance),
        "graph_score": rounded(graph),
        "target_need": site.need[i].tolist(),
        "source_authority": rounded(site.authority[i]),
        "direction_factor": site.direction[i].tolist(),
        "decision": [decisions.get(pair) for pair in zip(src, tgt, strict=True)],
        "reason": reasons,
        "confidence": [selection.calibration.confidence(s) for s in score],
        **_pair_columns(pairs, facts),
        **_anchor_columns(kept.anchors),
    }


def _pair_columns(pairs: list[CandidatePair], facts: dict[str, PageFacts]) -> dict[str, list[Any]]:
    """The columns copied from the candidate rows and from the two pages' facts."""
    sources = [facts[c.source_url] for c in pairs]
    targets = [facts[c.target_url] for c in pairs]
    return {
        "semantic_sim": [c.semantic_sim for c in pairs],
        "lexical_sim": [c.lexical_sim for c in pairs],
        "title_match": [c.title_match for c in pairs],
        "mention_score": [c.mention_score for c in pairs],
        "mention_phrase": [c.mention_phrase for c in pairs],
        "business_value": [f.business_value for f in targets],
        "source_type": [f.page_type for f in sources],
        "target_type": [f.page_type for f in targets],
    }


def _anchor_columns(anchors: list[AnchorChoice | None]) -> dict[str, list[Any]]:
    """The columns of the anchors placed (None where no sentence fits)."""
    return {
        "anchor_text": [a.anchor_text if a else None for a in anchors],
        "sentence": [a.sentence if a else None for a in anchors],
        "anchor_start": [a.start if a else None for a in anchors],
        "anchor_end": [a.end if a else None for a in anchors],
        "paragraph_idx": [a.paragraph_idx if a else None for a in anchors],
        "placement": ["in_sentence" if a else "needs_new_sentence" for a in anchors],
    }
