"""link_opportunities: candidates filtered, scored, capped and explained, per crawl."""

from __future__ import annotations

from pathlib import Path

import duckdb

from linkpipe.lib.links.rows import CandidatePair, records
from linkpipe.lib.links.scoring import PageFacts, ScoringConfig
from linkpipe.lib.links.site_scoring import score_site
from linkpipe.lib.run_config import scoring_config
from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.storage import (
    PartitionRows,
    fetch_dicts,
    open_db,
    stored_config,
    write_partition,
)
from linkpipe.lib.value.signals import BusinessValue, load_business_values


def load_candidates(con: duckdb.DuckDBPyConnection, crawl_id: str) -> list[CandidatePair]:
    """Every shard's candidate rows of the crawl."""
    return [
        CandidatePair.from_record(record)
        for record in fetch_dicts(con, "read/select_candidates_for_crawl", [crawl_id])
    ]


def load_page_facts(con: duckdb.DuckDBPyConnection, crawl_id: str) -> dict[str, PageFacts]:
    """What scoring knows of each indexable page: type, link metrics and business value."""
    page_rows = fetch_dicts(con, "read/select_page_facts", [crawl_id])
    values = load_business_values(con, [r["url"] for r in page_rows])
    facts = {}
    for r in page_rows:
        value = values.get(r["url"], BusinessValue())
        facts[r["url"]] = PageFacts(
            title=r["title"] or "",
            page_type=r["page_type"] or "page",
            content_inlinks=r["content_inlinks"],
            click_depth=r["click_depth"],
            link_score=r["link_score"],
            is_orphan=r["is_orphan"],
            is_deep=r["is_deep"],
            business_value=value.value,
            value_notes=value.notes,
        )
    return facts


def materialize_link_opportunities(
    db_path: str | Path, crawl_id: str, config: ScoringConfig | None = None
) -> StageResult:
    """Filter, score, cap and explain the crawl's candidates."""
    with open_db(db_path) as con:
        candidates = load_candidates(con, crawl_id)
        facts = load_page_facts(con, crawl_id)
        decisions = {
            (r["source_url"], r["target_url"]): r["decision"]
            for r in fetch_dicts(con, "read/select_decisions", [])
        }
    config = config or scoring_config(stored_config(db_path, crawl_id))
    scores = score_site(candidates, facts, decisions, config)
    rows = scores.opportunities
    tables: dict[str, PartitionRows] = {
        "link_opportunities": records(rows),
        "cannibalisation_pairs": records(scores.cannibalisation),
        "scoring_weights": [scores.weights.record()],
    }
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, tables)
    best = sorted(rows, key=lambda r: -r.score)
    return StageResult(
        written,
        preview(records(best), ["source_url", "target_url", "anchor_text", "score"]),
        {
            "in_sentence": sum(r.placement == "in_sentence" for r in rows),
            "confidence_at_least_0_5": sum(r.confidence >= 0.5 for r in rows),
            "pages_with_business_value": sum(f.business_value > 0 for f in facts.values()),
            "weights": f"{scores.weights.method}: {scores.weights.reason}",
            "scoring_weights": scores.weights.record(),
        },
    )
