"""The existing-link graph: resolved edges, in/out counts, click depth, PageRank, orphans.

Redirects and canonicals are resolved to their targets; nofollow links are not followed for
click depth or PageRank; self links are dropped. Navigation (header, footer, aside, nav) links
are counted apart from content links.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse


@dataclass
class GraphResult:
    """Rows for ``link_edges`` and ``page_link_metrics``."""

    edges: list[dict[str, Any]]
    metrics: list[dict[str, Any]]


def resolve_map(pages: Iterable[dict[str, Any]], max_hops: int = 10) -> dict[str, str]:
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
) -> np.ndarray:
    """PageRank over unique directed edges; dangling mass spread evenly; sums to 1."""
    if n == 0:
        return np.zeros(0)
    uniq = sorted(set(edges))
    src = np.array([s for s, _ in uniq], dtype=np.int64)
    dst = np.array([t for _, t in uniq], dtype=np.int64)
    out_deg = np.bincount(src, minlength=n).astype(np.float64)
    weights = 1.0 / out_deg[src] if len(src) else np.zeros(0)
    matrix = sparse.csr_matrix((weights, (dst, src)), shape=(n, n))
    dangling = out_deg == 0
    rank = np.full(n, 1.0 / n)
    for _ in range(200):
        new = damping * (matrix @ rank + rank[dangling].sum() / n) + (1 - damping) / n
        if np.abs(new - rank).sum() < tol:
            rank = new
            break
        rank = new
    return rank / rank.sum()


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
    pages: list[dict[str, Any]],
    links: Iterable[dict[str, Any]],
    start_url: str,
    indexable: dict[str, bool],
    deep_threshold: int = 3,
) -> GraphResult:
    """Edges and per-page metrics for one crawl."""
    resolved = resolve_map(pages)
    known = {p["url"] for p in pages}
    edges: list[dict[str, Any]] = []
    inlinks: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    outlinks: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    content_sources: dict[str, set[str]] = defaultdict(set)
    any_sources: dict[str, set[str]] = defaultdict(set)
    followed: dict[str, set[str]] = defaultdict(set)
    for link in links:
        if not link.get("internal", True):
            continue
        source = resolved.get(link["source_url"], link["source_url"])
        target = resolved.get(link["target_url"], link["target_url"])
        if target == source or target not in known and link["target_url"] not in known:
            continue
        position = link.get("position") or "content"
        edges.append(
            {
                "source_url": link["source_url"],
                "target_url": link["target_url"],
                "resolved_url": target,
                "anchor_text": link.get("anchor_text") or "",
                "position": position,
                "nofollow": bool(link.get("nofollow")),
            }
        )
        kind = "content" if position == "content" else "nav"
        inlinks[target][kind] += 1
        outlinks[source][kind] += 1
        any_sources[target].add(source)
        if kind == "content":
            content_sources[target].add(source)
        if not link.get("nofollow"):
            followed[source].add(target)
    start = resolved.get(start_url, start_url)
    depth = click_depths(start, followed)
    nodes = sorted(known)
    ids = {u: i for i, u in enumerate(nodes)}
    pr_edges = [(ids[s], ids[t]) for s, ts in followed.items() if s in ids for t in ts if t in ids]
    ranks = pagerank(len(nodes), pr_edges)
    low, high = (math.log(ranks.min()), math.log(ranks.max())) if len(nodes) else (0.0, 0.0)
    in_sitemap = {p["url"]: bool(p.get("in_sitemap")) for p in pages}
    metrics = []
    for url in nodes:
        pr = float(ranks[ids[url]])
        d = depth.get(url)
        metrics.append(
            {
                "url": url,
                "indexable": indexable.get(url, False),
                "in_sitemap": in_sitemap.get(url, False),
                "content_inlinks": inlinks[url]["content"],
                "unique_content_inlinks": len(content_sources[url]),
                "nav_inlinks": inlinks[url]["nav"],
                "content_outlinks": outlinks[url]["content"],
                "nav_outlinks": outlinks[url]["nav"],
                "click_depth": d,
                "pagerank": pr,
                "link_score": 100.0 * (math.log(pr) - low) / (high - low) if high > low else 100.0,
                "is_orphan": url != start and not any_sources[url],
                "is_deep": d is None or d > deep_threshold,
            }
        )
    return GraphResult(edges, metrics)
