"""indexable_pages: which crawled URLs take part, and why the others do not; with the
thresholds the rules used on this crawl (``indexability_thresholds``). A page whose HTML is that
of the previous crawl keeps the main-area facts measured then (its HTML is not even read)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb

from linkpipe.lib.content.indexability import IndexabilityRules, classify_site
from linkpipe.lib.content.main_area import TextFacts, facts_digest
from linkpipe.lib.html.stored import decompress_html
from linkpipe.lib.run_config import indexability_rules
from linkpipe.lib.stages.common import (
    StageResult,
    copy_crawl_of_same_inputs,
    inputs_digest,
    preview,
)
from linkpipe.lib.storage import fetch_dicts, iter_dicts, open_db, stored_config, write_partition


def _pages(
    con: duckdb.DuckDBPyConnection, crawl_id: str, digest: str
) -> Iterator[dict[str, Any]]:
    """The crawl's pages, each with its decoded ``html`` or the previous crawl's ``facts``."""
    found = fetch_dicts(con, "read/select_previous_indexable_crawl", [crawl_id])
    previous = found[0]["crawl_id"] if found else None
    for page in iter_dicts(con, "read/select_pages_for_indexability", [previous, digest, crawl_id]):
        page["html"] = decompress_html(page.pop("html_z"))
        if page.pop("reusable"):
            page["facts"] = TextFacts(
                page["word_count"], page["link_share"], page["main_links"],
                page["child_links"], page["text_key"], page["simhash"],
            )  # fmt: skip
        yield page


INDEXABLE_TABLES = ("indexable_pages", "indexability_thresholds")
THRESHOLD_FIGURES = {  # the site-wide thresholds' names as figures of the run
    "thin": "thin_threshold_words",
    "listing": "listing_threshold_link_share",
    "near_duplicate": "near_duplicate_threshold_bits",
}


def materialize_indexable_pages(
    db_path: str | Path,
    crawl_id: str,
    rules: IndexabilityRules | None = None,
    reuse: bool = True,
) -> StageResult:
    """Classify every crawled URL; excluded ones keep their reason, and the thresholds used
    are stored with the crawl. With ``reuse``, a crawl whose inputs are an earlier crawl's
    (every crawled URL's facts and HTML, the rules, the code: ``select_indexable_inputs.sql``)
    copies its rows: a refresh of an unchanged site classifies nothing again."""
    rules = rules or indexability_rules(stored_config(db_path, crawl_id))
    digest = facts_digest()
    with open_db(db_path) as con:
        inputs = inputs_digest(con, crawl_id, "read/select_indexable_inputs", repr(rules))
        if reuse:
            copied = copy_crawl_of_same_inputs(
                con, crawl_id, "indexable_inputs", inputs, INDEXABLE_TABLES
            )
            if copied is not None:
                return _copied(con, crawl_id, copied)
        site = classify_site(_pages(con, crawl_id, digest), rules)
    if not site.rows:
        raise ValueError(f"crawl {crawl_id!r} has no pages: materialize crawl_export first")
    rows = [{**r, "facts_digest": digest if r["text_key"] is not None else None} for r in site.rows]
    thresholds = [t.row() for t in site.thresholds]
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {
                "indexable_pages": rows,
                "indexability_thresholds": thresholds,
                "indexable_inputs": [{"digest": inputs}],
            },
        )
    reasons = dict(Counter(r["reason"] or "indexable" for r in site.rows))
    excluded = [r for r in site.rows if not r["indexable"]]
    meta = {
        "by_reason": reasons,
        "facts_reused": site.reused,
        "thresholds": thresholds,
        **threshold_figures(thresholds),
        "copied_from": "",
    }
    return StageResult(written, preview(excluded, ["url", "reason", "detail"]), meta)


def _copied(con: duckdb.DuckDBPyConnection, crawl_id: str, copied: StageResult) -> StageResult:
    """The result of a crawl that copied its rows: its reasons and thresholds as stored."""
    reasons = fetch_dicts(con, "read/count_indexable_reasons", [crawl_id])
    thresholds = load_indexability_thresholds(con, crawl_id)
    meta = {"by_reason": {r["reason"]: r["pages"] for r in reasons}, "thresholds": thresholds}
    return replace(copied, meta=copied.meta | meta | threshold_figures(thresholds))


def threshold_figures(thresholds: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The site-wide thresholds (``indexability_thresholds`` rows) as numbers, for plots
    across crawls."""
    return {
        THRESHOLD_FIGURES[t["rule"]]: t["threshold"] for t in thresholds if t["page_type"] is None
    }


def load_indexability_thresholds(
    con: duckdb.DuckDBPyConnection, crawl_id: str
) -> list[dict[str, Any]]:
    """The thresholds stored for a crawl: listing, thin (the site's first, then each page type
    measured apart), near_duplicate."""
    return fetch_dicts(con, "read/select_indexability_thresholds", [crawl_id])
