"""link_graph: resolved existing links and per-page link metrics of a crawl; a crawl whose pages
and links are an earlier crawl's copies its rows (``graph_inputs``)."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from sys import intern
from typing import NamedTuple

import duckdb
import polars as pl

from linkpipe.lib.links.edge_set import EdgeSet
from linkpipe.lib.links.graph import LINKS_SCHEMA, PAGES_SCHEMA, build_link_graph
from linkpipe.lib.run_config import deep_threshold
from linkpipe.lib.stages.common import (
    StageResult,
    copy_crawl_of_same_inputs,
    inputs_digest,
    preview,
)
from linkpipe.lib.storage import (
    crawl_row,
    fetch_frame,
    open_db,
    stored_config,
    write_partition,
)
from linkpipe.lib.text.lexical import is_generic_anchor


class ExistingLinks(NamedTuple):
    """The crawl's resolved links: content links as sets of target URLs per source URL, the
    others (navigation, header, footer, aside: most of a large site's edges, only looked up)
    as an :class:`EdgeSet`."""

    content: dict[str, set[str]]  # links in the main content
    nav: EdgeSet  # navigation, header, footer and aside links
    anchors: dict[str, list[str]]  # known descriptive anchors per target, most used first


GRAPH_TABLES = ("link_edges", "page_link_metrics")


def graph_digest(con: duckdb.DuckDBPyConnection, crawl_id: str, deep: int) -> str:
    """Digest of everything the crawl's link graph is computed from: its start URL, pages and
    internal links (sql/read/select_graph_inputs.sql), the deep-page threshold and the code."""
    return inputs_digest(con, crawl_id, "read/select_graph_inputs", str(deep))


def materialize_link_graph(
    db_path: str | Path, crawl_id: str, deep: int | None = None, reuse: bool = True
) -> StageResult:
    """Resolved link edges and per-page link metrics for the crawl. With ``reuse``, a crawl
    whose inputs are an earlier crawl's (:func:`graph_digest`) copies its rows."""
    deep = deep if deep is not None else deep_threshold(stored_config(db_path, crawl_id))
    with open_db(db_path) as con:
        digest = graph_digest(con, crawl_id, deep)
        if reuse:
            copied = copy_crawl_of_same_inputs(con, crawl_id, "graph_inputs", digest, GRAPH_TABLES)
            if copied is not None:
                return copied
        pages, links = graph_inputs(con, crawl_id)
        crawl = crawl_row(con, crawl_id)
    start_url = crawl["start_url"] if crawl else (pages["url"][0] if pages.height else "")
    graph = build_link_graph(pages, links, start_url, deep)
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {
                "link_edges": graph.edges,
                "page_link_metrics": graph.metrics,
                "graph_inputs": [{"digest": digest}],
            },
        )
    metrics = graph.metrics
    orphans = metrics.filter(pl.col("is_orphan") & pl.col("indexable"))["url"].to_list()
    top = metrics.sort("pagerank", descending=True, maintain_order=True)
    return StageResult(
        written,
        preview(top, ["url", "pagerank", "content_inlinks", "click_depth"]),
        {"orphans": orphans[:20], "orphan_count": len(orphans), "copied_from": ""},
    )


def graph_inputs(
    con: duckdb.DuckDBPyConnection, crawl_id: str
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The crawl's pages and internal links as :func:`build_link_graph` reads them (two
    frames: a 100k-page site's ~5M links held as rows took gigabytes)."""
    pages = fetch_frame(con, "read/select_pages_for_graph", [crawl_id]).cast(PAGES_SCHEMA)
    links = fetch_frame(con, "read/select_links_for_graph", [crawl_id]).cast(LINKS_SCHEMA)
    return pages, links


def load_existing_links(con: duckdb.DuckDBPyConnection, crawl_id: str) -> ExistingLinks:
    """(content links per source, other links as edges, known anchors per target)."""
    content, anchors = load_content_links(con, crawl_id)
    return ExistingLinks(content, load_other_links(con, crawl_id), anchors)


def load_content_links(
    con: duckdb.DuckDBPyConnection, crawl_id: str
) -> tuple[defaultdict[str, set[str]], dict[str, list[str]]]:
    """(content links per source, known anchors per target), read as one polars frame."""
    edges = fetch_frame(con, "read/select_content_links", [crawl_id])
    return _targets_of(edges), _known_anchors(edges)


def load_other_links(con: duckdb.DuckDBPyConnection, crawl_id: str) -> EdgeSet:
    """The navigation, header, footer and aside links (most of a large site's edges)."""
    edges = fetch_frame(con, "read/select_other_links", [crawl_id])
    return EdgeSet.of_frame(edges, "source_url", "resolved_url")


def _targets_of(edges: pl.DataFrame) -> defaultdict[str, set[str]]:
    """The resolved targets of each source of ``edges``; every URL is one string object
    (interned: a 100k-page site's edges name each page tens of times, and a copy of its URL
    each time took most of the memory of a shard worker's links)."""
    grouped = edges.group_by("source_url").agg(pl.col("resolved_url")).sort("source_url")
    found: defaultdict[str, set[str]] = defaultdict(set)
    for source, targets in grouped.iter_rows():
        found[intern(source)] = set(map(intern, targets))
    return found


def _known_anchors(content: pl.DataFrame) -> dict[str, list[str]]:
    """The descriptive anchor texts of each target's content links (whitespace collapsed, not
    generic, at most 80 characters), most used first, then alphabetical."""
    texts = content.group_by("resolved_url", "anchor_text").len()
    usable: dict[str | None, str | None] = {}
    for raw in texts["anchor_text"].unique().to_list():
        text = " ".join((raw or "").split())
        usable[raw] = text if text and not is_generic_anchor(text) and len(text) <= 80 else None
    anchors: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for target, raw, n in texts.iter_rows():
        kept = usable[raw]
        if kept is not None:
            anchors[intern(target)][kept] += n
    # most used first, then alphabetical: the same order whatever order the edges come in
    return {t: sorted(c, key=lambda a: (-c[a], a)) for t, c in anchors.items()}
