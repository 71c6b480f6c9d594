"""The existing-link graph: resolved edges, in/out counts, click depth, PageRank, orphans.

Redirects and canonicals are resolved to their targets; nofollow links are not followed for
click depth or PageRank; self links are dropped. Navigation (header, footer, aside, nav) links
are counted apart from content links.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import NDArray
from scipy import sparse

EDGE_SCHEMA = pl.Schema(
    {
        "source_url": pl.String,
        "target_url": pl.String,  # as linked
        "resolved_url": pl.String,  # after redirects and canonicals
        "anchor_text": pl.String,
        "position": pl.String,
        "nofollow": pl.Boolean,
    }
)
"""Columns of a ``link_edges`` row (``crawl_id`` is added when written)."""

METRICS_SCHEMA = pl.Schema(
    {
        "url": pl.String,
        "indexable": pl.Boolean,
        "in_sitemap": pl.Boolean,
        "content_inlinks": pl.Int32,
        "unique_content_inlinks": pl.Int32,
        "nav_inlinks": pl.Int32,
        "content_outlinks": pl.Int32,
        "nav_outlinks": pl.Int32,
        "click_depth": pl.Int32,  # null when unreachable by followed links from the start
        "pagerank": pl.Float64,
        "link_score": pl.Float64,
        "is_orphan": pl.Boolean,
        "is_deep": pl.Boolean,
    }
)
"""Columns of a ``page_link_metrics`` row (``crawl_id`` is added when written)."""

PAGES_SCHEMA = pl.Schema(
    {
        "url": pl.String,
        "status": pl.Int32,
        "final_url": pl.String,
        "canonical": pl.String,
        "redirect_loop": pl.Boolean,
        "in_sitemap": pl.Boolean,
        "indexable": pl.Boolean,
    }
)
"""Columns of the crawled pages the graph reads (``select_pages_for_graph.sql``)."""

LINKS_SCHEMA = pl.Schema(
    {
        "source_url": pl.String,
        "target_url": pl.String,
        "anchor_text": pl.String,
        "position": pl.String,
        "nofollow": pl.Boolean,
        "internal": pl.Boolean,
    }
)
"""Columns of the crawled links the graph reads (``select_links_for_graph.sql``)."""

PageRow = Mapping[str, Any]
"""A crawled page (the columns of :data:`PAGES_SCHEMA`; only ``url`` is required)."""


@dataclass
class GraphResult:
    """The ``link_edges`` frame (:data:`EDGE_SCHEMA`) and the ``page_link_metrics`` frame
    (:data:`METRICS_SCHEMA`, one row per crawled URL, sorted by URL)."""

    edges: pl.DataFrame
    metrics: pl.DataFrame


def pages_frame(rows: Iterable[Mapping[str, Any]]) -> pl.DataFrame:
    """Crawled pages given as rows, as the frame :func:`build_link_graph` reads (missing
    columns empty)."""
    return _frame(rows, PAGES_SCHEMA)


def links_frame(rows: Iterable[Mapping[str, Any]]) -> pl.DataFrame:
    """Crawled links given as rows, as the frame :func:`build_link_graph` reads (missing
    columns empty; ``internal`` true when missing)."""
    frame = _frame(rows, LINKS_SCHEMA)
    return frame.with_columns(pl.col("internal").fill_null(True))


def _frame(rows: Iterable[Mapping[str, Any]], schema: pl.Schema) -> pl.DataFrame:
    """``rows`` with exactly the columns of ``schema`` (those a row lacks are null)."""
    return pl.DataFrame(
        [{name: row.get(name) for name in schema} for row in rows], schema=schema, orient="row"
    )


def resolve_map(pages: Iterable[PageRow], max_hops: int = 10) -> dict[str, str]:
    """url -> the URL it stands for after redirects and canonicals (itself when neither)."""
    step: dict[str, str] = {}
    for p in pages:
        url = p["url"]
        final = p.get("final_url") or ""
        canonical = p.get("canonical") or ""
        if final and final != url and not p.get("redirect_loop"):
            step[url] = final
        elif canonical and canonical != url and (p.get("status") or 0) == 200:
            step[url] = canonical
    resolved: dict[str, str] = {}
    for url in step:
        seen, cur = {url}, url
        for _ in range(max_hops):
            nxt = step.get(cur)
            if nxt is None or nxt in seen:
                break
            seen.add(nxt)
            cur = nxt
        resolved[url] = cur
    return resolved


def pagerank(
    n: int,
    src: NDArray[np.int64],
    dst: NDArray[np.int64],
    damping: float = 0.85,
    tol: float = 1e-10,
) -> NDArray[np.float64]:
    """PageRank over the unique directed edges ``src[i] -> dst[i]``; dangling mass spread
    evenly; sums to 1."""
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    keys = np.unique(src.astype(np.int64) * n + dst.astype(np.int64))  # by (source, target)
    src, dst = keys // n, keys % n
    out_deg = np.bincount(src, minlength=n).astype(np.float64)
    weights = 1.0 / out_deg[src] if len(src) else np.zeros(0)
    matrix = sparse.csr_matrix((weights, (dst, src)), shape=(n, n))
    dangling = out_deg == 0
    rank: NDArray[np.float64] = np.full(n, 1.0 / n)
    for _ in range(200):
        new = damping * (matrix @ rank + rank[dangling].sum() / n) + (1 - damping) / n
        if np.abs(new - rank).sum() < tol:
            rank = new
            break
        rank = new
    normalised: NDArray[np.float64] = rank / rank.sum()
    return normalised


def click_depths(
    start: int, n: int, src: NDArray[np.int64], dst: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Breadth-first click depth of each of ``n`` nodes from node ``start`` over the edges
    ``src[i] -> dst[i]`` (-1: not reached)."""
    graph = sparse.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    depth = np.full(n, -1, np.int64)
    depth[start] = 0
    frontier, level = np.array([start]), 0
    while len(frontier):
        level += 1
        reached = np.unique(graph[frontier].indices)
        frontier = reached[depth[reached] < 0]
        depth[frontier] = level
    return depth


def build_link_graph(
    pages: pl.DataFrame, links: pl.DataFrame, start_url: str, deep_threshold: int = 3
) -> GraphResult:
    """Edges and per-page metrics for one crawl: ``pages`` and ``links`` as
    :func:`pages_frame` and :func:`links_frame` give them (or their queries read them)."""
    resolved = resolve_map(pages.iter_rows(named=True))
    edges = resolved_edges(links, resolved, pages["url"])
    start = resolved.get(start_url, start_url)
    metrics = page_metrics(pages, edges, start, deep_threshold)
    return GraphResult(edges.select(list(EDGE_SCHEMA)), metrics)


def resolved_edges(
    links: pl.DataFrame, resolved: Mapping[str, str], known: pl.Series
) -> pl.DataFrame:
    """The internal links resolved, in their order: :data:`EDGE_SCHEMA` with the resolved
    source (``resolved_source``). Self links and links to uncrawled URLs are dropped; a link
    with no position is a content link."""
    frame = links.filter(pl.col("internal"))
    frame = frame.with_columns(
        pl.col("source_url").replace(resolved).alias("resolved_source"),
        pl.col("target_url").replace(resolved).alias("resolved_url"),
    )
    urls = known.implode()
    crawled = pl.col("resolved_url").is_in(urls) | pl.col("target_url").is_in(urls)
    frame = frame.filter((pl.col("resolved_url") != pl.col("resolved_source")) & crawled)
    position = pl.col("position")
    return frame.select(
        "source_url",
        "target_url",
        "resolved_url",
        pl.col("anchor_text").fill_null(""),
        pl.when(position.is_null() | (position == ""))
        .then(pl.lit("content"))
        .otherwise(position)
        .alias("position"),
        pl.col("nofollow").fill_null(False).cast(pl.Boolean),
        "resolved_source",
    )


def page_metrics(
    pages: pl.DataFrame, edges: pl.DataFrame, start: str, deep_threshold: int
) -> pl.DataFrame:
    """One :data:`METRICS_SCHEMA` row per crawled URL, sorted by URL: link counts, click depth
    from ``start`` over followed links, PageRank and its 0..100 log rescaling, orphan and deep
    flags."""
    nodes = pages.select("url", "indexable", "in_sitemap").unique("url").sort("url")
    counts = _link_counts(edges)
    depth, ranks = _depths_and_ranks(nodes["url"], edges, start)
    low, high = (math.log(ranks.min()), math.log(ranks.max())) if len(ranks) else (0.0, 0.0)
    scores = [100.0 * (math.log(r) - low) / (high - low) if high > low else 100.0 for r in ranks]
    frame = nodes.join(counts, on="url", how="left", maintain_order="left").with_columns(
        pl.Series("click_depth", depth, pl.Int64).replace(-1, None),
        pl.Series("pagerank", ranks, pl.Float64),
        pl.Series("link_score", scores, pl.Float64),
    )
    reached = pl.col("any_inlinks").fill_null(0) > 0
    return frame.select(
        "url",
        pl.col("indexable").fill_null(False),
        pl.col("in_sitemap").fill_null(False),
        *(pl.col(c).fill_null(0) for c in _COUNTS),
        "click_depth",
        "pagerank",
        "link_score",
        ((pl.col("url") != start) & ~reached).alias("is_orphan"),
        (pl.col("click_depth").is_null() | (pl.col("click_depth") > deep_threshold)).alias(
            "is_deep"
        ),
    ).cast(METRICS_SCHEMA)


_COUNTS = (
    "content_inlinks",
    "unique_content_inlinks",
    "nav_inlinks",
    "content_outlinks",
    "nav_outlinks",
)


def _link_counts(edges: pl.DataFrame) -> pl.DataFrame:
    """Per URL: content and navigation links in and out (by resolved source and target), the
    distinct sources of its content links and its inlinks of any kind."""
    content = pl.col("position") == "content"
    inlinks = edges.group_by("resolved_url").agg(
        content.sum().alias("content_inlinks"),
        pl.col("resolved_source").filter(content).n_unique().alias("unique_content_inlinks"),
        (~content).sum().alias("nav_inlinks"),
        pl.len().alias("any_inlinks"),
    )
    outlinks = edges.group_by("resolved_source").agg(
        content.sum().alias("content_outlinks"), (~content).sum().alias("nav_outlinks")
    )
    return inlinks.rename({"resolved_url": "url"}).join(
        outlinks.rename({"resolved_source": "url"}), on="url", how="full", coalesce=True
    )


def _depths_and_ranks(
    nodes: pl.Series, edges: pl.DataFrame, start: str
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Click depth from ``start`` (-1: not reached) and PageRank of each of ``nodes`` (in
    order) over the followed links: depth through any URL the links reach, PageRank over the
    links between crawled URLs."""
    followed = edges.filter(~pl.col("nofollow")).select("resolved_source", "resolved_url")
    urls = pl.concat(
        [nodes, pl.Series([start]), followed["resolved_source"], followed["resolved_url"]]
    ).unique(maintain_order=True)  # the crawled URLs first, in order
    ids = pl.DataFrame({"url": urls, "id": np.arange(len(urls), dtype=np.int64)})
    pairs = (
        followed.join(ids, left_on="resolved_source", right_on="url")
        .join(ids, left_on="resolved_url", right_on="url", suffix="_to")
        .select("id", "id_to")
    )
    src, dst = pairs["id"].to_numpy(), pairs["id_to"].to_numpy()
    start_id = int(ids.filter(pl.col("url") == start)["id"][0])
    depth = click_depths(start_id, len(urls), src, dst)[: len(nodes)]
    n = len(nodes)
    inside = (src < n) & (dst < n)
    return depth, pagerank(n, src[inside], dst[inside])
