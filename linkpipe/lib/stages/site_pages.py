"""indexable_pages and link_graph: which pages take part, and the existing links between them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from linkpipe.lib.graph_metrics import build_link_graph
from linkpipe.lib.indexability import IndexabilityRules, classify_pages
from linkpipe.lib.run_config import deep_threshold, indexability_rules
from linkpipe.lib.stages.common import (
    StageResult,
    decompress_html,
    fetch_dicts,
    preview,
    stored_config,
)
from linkpipe.lib.storage import load_sql, open_db, write_partition


def _pages_with_html(con: Any, crawl_id: str) -> Iterator[dict[str, Any]]:
    cur = con.execute(load_sql("queries/pages_for_indexability"), [crawl_id])
    names = [d[0] for d in cur.description]
    while True:
        chunk = cur.fetchmany(500)
        if not chunk:
            return
        for row in chunk:
            page = dict(zip(names, row, strict=True))
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
    reasons: dict[str, int] = {}
    for r in rows:
        reasons[r["reason"] or "indexable"] = reasons.get(r["reason"] or "indexable", 0) + 1
    excluded = [r for r in rows if not r["indexable"]]
    return StageResult(
        written, preview(excluded, ["url", "reason", "detail"]), {"by_reason": reasons}
    )


def materialize_link_graph(
    db_path: str | Path, crawl_id: str, deep: int | None = None
) -> StageResult:
    """Resolved link edges and per-page link metrics for the crawl."""
    deep = deep if deep is not None else deep_threshold(stored_config(db_path, crawl_id))
    with open_db(db_path) as con:
        pages = fetch_dicts(con, "pages_for_graph", [crawl_id])
        links = fetch_dicts(con, "links_for_graph", [crawl_id])
        start = fetch_dicts(con, "crawl_config", [crawl_id])
    start_url = start[0]["start_url"] if start else (pages[0]["url"] if pages else "")
    indexable = {p["url"]: bool(p["indexable"]) for p in pages}
    graph = build_link_graph(pages, links, start_url, indexable, deep)
    with open_db(db_path) as con:
        written = write_partition(
            con, crawl_id, {"link_edges": graph.edges, "page_link_metrics": graph.metrics}
        )
    orphans = [m["url"] for m in graph.metrics if m["is_orphan"] and m["indexable"]]
    top = sorted(graph.metrics, key=lambda m: -m["pagerank"])
    return StageResult(
        written,
        preview(top, ["url", "pagerank", "content_inlinks", "click_depth"]),
        {"orphans": orphans[:20], "orphan_count": len(orphans)},
    )
