"""The existing-link graph: resolved edges, in/out counts, click depth, PageRank, orphans.

Redirects and canonicals are resolved to their targets; nofollow links are not followed for
click depth or PageRank; self links are dropped. Navigation (header, footer, aside, nav) links
are counted apart from content links.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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

PageRow = Mapping[str, Any]
"""A crawled page as read for the graph: url, status, final_url, canonical, redirect_loop,
in_sitemap."""
LinkRow = Mapping[str, Any]
"""A crawled link: source_url, target_url, anchor_text, position, nofollow, internal."""


@dataclass
class GraphResult:
    """The ``link_edges`` frame (:data:`EDGE_SCHEMA`) and the ``page_link_metrics`` frame
    (:data:`METRICS_SCHEMA`, one row per crawled URL, sorted by URL)."""

    edges: pl.DataFrame
    metrics: pl.DataFrame


@dataclass
class LinkTally:
    """What the edges of a crawl say about each page, counted while reading them once."""

    edges: list[tuple[str, str, str, str, str, bool]] = field(default_factory=list)
    inlinks: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    outlinks: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    content_sources: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    any_sources: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    followed: defaultdict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


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
    n: int, edges: list[tuple[int, int]], damping: float = 0.85, tol: float = 1e-10
) -> NDArray[np.float64]:
    """PageRank over unique directed edges; dangling mass spread evenly; sums to 1."""
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    uniq = sorted(set(edges))
    src = np.array([s for s, _ in uniq], dtype=np.int64)
    dst = np.array([t for _, t in uniq], dtype=np.int64)
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


def click_depths(start: str, adjacency: dict[str, set[str]]) -> dict[str, int]:
    """Breadth-first click depth from ``start`` over followed links."""
    depth = {start: 0}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for nxt in adjacency.get(cur, ()):
            if nxt not in depth:
                depth[nxt] = depth[cur] + 1
                queue.append(nxt)
    return depth


def build_link_graph(
    pages: Sequence[PageRow],
    links: Iterable[LinkRow],
    start_url: str,
    indexable: Mapping[str, bool],
    deep_threshold: int = 3,
) -> GraphResult:
    """Edges and per-page metrics for one crawl."""
    resolved = resolve_map(pages)
    known = {p["url"] for p in pages}
    tally = tally_links(links, resolved, known)
    start = resolved.get(start_url, start_url)
    edges = pl.DataFrame(tally.edges, schema=EDGE_SCHEMA, orient="row")
    metrics = page_metrics(pages, tally, start, indexable, deep_threshold)
    return GraphResult(edges, metrics)


def tally_links(
    links: Iterable[LinkRow], resolved: Mapping[str, str], known: set[str]
) -> LinkTally:
    """Resolve each internal link and count it: edges kept, in/out links by kind (content or
    navigation), distinct sources, and followed (not nofollow) adjacency. Self links and links
    to uncrawled URLs are dropped."""
    tally = LinkTally()
    for link in links:
        if not link.get("internal", True):
            continue
        source = resolved.get(link["source_url"], link["source_url"])
        target = resolved.get(link["target_url"], link["target_url"])
        if target == source or target not in known and link["target_url"] not in known:
            continue
        position = link.get("position") or "content"
        nofollow = bool(link.get("nofollow"))
        anchor = link.get("anchor_text") or ""
        tally.edges.append(
            (link["source_url"], link["target_url"], target, anchor, position, nofollow)
        )
        kind = "content" if position == "content" else "nav"
        tally.inlinks[target][kind] += 1
        tally.outlinks[source][kind] += 1
        tally.any_sources[target].add(source)
        if kind == "content":
            tally.content_sources[target].add(source)
        if not nofollow:
            tally.followed[source].add(target)
    return tally


def page_metrics(
    pages: Sequence[PageRow],
    tally: LinkTally,
    start: str,
    indexable: Mapping[str, bool],
    deep_threshold: int,
) -> pl.DataFrame:
    """One :data:`METRICS_SCHEMA` row per crawled URL, sorted by URL: link counts, click depth
    from ``start``, PageRank and its 0..100 log rescaling, orphan and deep flags."""
    nodes = sorted({p["url"] for p in pages})
    depth = click_depths(start, tally.followed)
    ranks = _node_ranks(nodes, tally.followed)
    low, high = (math.log(ranks.min()), math.log(ranks.max())) if nodes else (0.0, 0.0)
    in_sitemap = {p["url"]: bool(p.get("in_sitemap")) for p in pages}
    rows = []
    for url, rank in zip(nodes, ranks.tolist(), strict=True):
        d = depth.get(url)
        rows.append(
            (
                url,
                indexable.get(url, False),
                in_sitemap.get(url, False),
                tally.inlinks[url]["content"],
                len(tally.content_sources[url]),
                tally.inlinks[url]["nav"],
                tally.outlinks[url]["content"],
                tally.outlinks[url]["nav"],
                d,
                rank,
                100.0 * (math.log(rank) - low) / (high - low) if high > low else 100.0,
                url != start and not tally.any_sources[url],
                d is None or d > deep_threshold,
            )
        )
    return pl.DataFrame(rows, schema=METRICS_SCHEMA, orient="row")


def _node_ranks(nodes: list[str], followed: Mapping[str, set[str]]) -> NDArray[np.float64]:
    """PageRank of each of ``nodes`` (in order) over the followed links between them."""
    ids = {u: i for i, u in enumerate(nodes)}
    pr_edges = [(ids[s], ids[t]) for s, ts in followed.items() if s in ids for t in ts if t in ids]
    return pagerank(len(nodes), pr_edges)
