"""indexable_pages: which crawled URLs take part, and why the others do not."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from linkpipe.lib.content.indexability import IndexabilityRules, classify_pages
from linkpipe.lib.run_config import indexability_rules
from linkpipe.lib.stages.common import StageResult, decompress_html, preview
from linkpipe.lib.storage import iter_dicts, open_db, stored_config, write_partition


def _pages_with_html(con: duckdb.DuckDBPyConnection, crawl_id: str) -> Iterator[dict[str, Any]]:
    for page in iter_dicts(con, "read/select_pages_for_indexability", [crawl_id]):
        page["html"] = decompress_html(page.pop("html_z"))
        yield page


def materialize_indexable_pages(
    db_path: str | Path, crawl_id: str, rules: IndexabilityRules | None = None
) -> StageResult:
    """Classify every crawled URL; excluded ones keep their reason."""
    rules = rules or indexability_rules(stored_config(db_path, crawl_id))
    with open_db(db_path) as con:
        rows = classify_pages(_pages_with_html(con, crawl_id), rules)
    if not rows:
        raise ValueError(f"crawl {crawl_id!r} has no pages: materialize crawl_export first")
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, {"indexable_pages": rows})
    reasons = dict(Counter(r["reason"] or "indexable" for r in rows))
    excluded = [r for r in rows if not r["indexable"]]
    return StageResult(
        written, preview(excluded, ["url", "reason", "detail"]), {"by_reason": reasons}
    )
