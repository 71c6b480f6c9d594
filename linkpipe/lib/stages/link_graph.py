"""link_graph: resolved existing links and per-page link metrics of a crawl."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from linkpipe.lib.links.graph import build_link_graph
from linkpipe.lib.run_config import deep_threshold
from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.storage import crawl_row, fetch_dicts, open_db, stored_config, write_partition
from linkpipe.lib.text.lexical import is_generic_anchor


def materialize_link_graph(
    db_path: str | Path, crawl_id: str, deep: int | None = None
) -> StageResult:
    """Resolved link edges and per-page link metrics for the crawl."""
    deep = deep if deep is not None else deep_threshold(stored_config(db_path, crawl_id))
    with open_db(db_path) as con:
        pages = fetch_dicts(con, "read/select_pages_for_graph", [crawl_id])
        links = fetch_dicts(con, "read/select_links_for_graph", [crawl_id])
        crawl = crawl_row(con, crawl_id)
    start_url = crawl["start_url"] if crawl else (pages[0]["url"] if pages else "")
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


def load_existing_links(con: Any, crawl_id: str) -> tuple[dict, dict, dict]:
    """(content links per source, other links per source, known anchors per target)."""
    content: dict[str, set[str]] = defaultdict(set)
    nav: dict[str, set[str]] = defaultdict(set)
    anchors: dict[str, Counter] = defaultdict(Counter)
    for e in fetch_dicts(con, "read/select_content_edges", [crawl_id]):
        if e["position"] == "content":
            content[e["source_url"]].add(e["resolved_url"])
            text = " ".join((e["anchor_text"] or "").split())
            if text and not is_generic_anchor(text) and len(text) <= 80:
                anchors[e["resolved_url"]][text] += 1
        else:
            nav[e["source_url"]].add(e["resolved_url"])
    known = {t: [a for a, _ in c.most_common()] for t, c in anchors.items()}
    return content, nav, known
