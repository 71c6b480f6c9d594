"""indexable_pages: which crawled URLs take part, and why the others do not; with the
thresholds the rules used on this crawl (``indexability_thresholds``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from linkpipe.lib.content.indexability import IndexabilityRules, classify_site
from linkpipe.lib.content.site_thresholds import Threshold
from linkpipe.lib.run_config import indexability_rules
from linkpipe.lib.stages.common import StageResult, decompress_html, preview
from linkpipe.lib.storage import fetch_dicts, iter_dicts, open_db, stored_config, write_partition


def _pages_with_html(con: duckdb.DuckDBPyConnection, crawl_id: str) -> Iterator[dict[str, Any]]:
    for page in iter_dicts(con, "read/select_pages_for_indexability", [crawl_id]):
        page["html"] = decompress_html(page.pop("html_z"))
        yield page


def materialize_indexable_pages(
    db_path: str | Path, crawl_id: str, rules: IndexabilityRules | None = None
) -> StageResult:
    """Classify every crawled URL; excluded ones keep their reason, and the thresholds used
    are stored with the crawl."""
    rules = rules or indexability_rules(stored_config(db_path, crawl_id))
    with open_db(db_path) as con:
        site = classify_site(_pages_with_html(con, crawl_id), rules)
    if not site.rows:
        raise ValueError(f"crawl {crawl_id!r} has no pages: materialize crawl_export first")
    thresholds = [t.row() for t in site.thresholds]
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {"indexable_pages": site.rows, "indexability_thresholds": thresholds},
        )
    reasons = dict(Counter(r["reason"] or "indexable" for r in site.rows))
    excluded = [r for r in site.rows if not r["indexable"]]
    meta = {"by_reason": reasons, "thresholds": thresholds, **threshold_figures(site.thresholds)}
    return StageResult(written, preview(excluded, ["url", "reason", "detail"]), meta)


def threshold_figures(thresholds: list[Threshold]) -> dict[str, float]:
    """The site-wide thresholds as numbers, for plots across crawls."""
    names = {
        "thin": "thin_threshold_words",
        "listing": "listing_threshold_link_share",
        "near_duplicate": "near_duplicate_threshold_bits",
    }
    return {names[t.rule]: t.value for t in thresholds if t.page_type is None}


def load_indexability_thresholds(
    con: duckdb.DuckDBPyConnection, crawl_id: str
) -> list[dict[str, Any]]:
    """The thresholds stored for a crawl: listing, thin (the site's first, then each page type
    measured apart), near_duplicate."""
    return fetch_dicts(con, "read/select_indexability_thresholds", [crawl_id])
