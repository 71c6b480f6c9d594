"""What the report's charts and page tables show, computed from what was read: content inlinks
before and after the shown suggestions, the what-if summary (orphans, click depth, PageRank
Gini) of implementing them, the deep pages, and the page vectors projected to 2D (PCA)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from linkpipe.lib.links.whatif import WhatIfSummary, summarise, whatif_pages
from linkpipe.lib.report.data import ReportCrawl, Suggestion, Table

INLINK_BUCKETS: tuple[tuple[int, int | None, str], ...] = (
    (0, 0, "0"),
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 5, "3-5"),
    (6, 10, "6-10"),
    (11, None, "11+"),
)
"""(lowest, highest or None, label) of each bar of the inlinks chart."""
MAP_MAX_POINTS = 20_000
WHATIF_SCENARIO = "report"


@dataclass(frozen=True)
class ClusterMap:
    """Clustered pages placed in 2D: ``points`` (url, title, cluster_id, cluster_label,
    is_bridge, x, y), the share of variance each axis explains, and how many pages were
    clustered (``points`` holds an even sample of them above :data:`MAP_MAX_POINTS`)."""

    points: pl.DataFrame
    explained: tuple[float, float]
    total: int


def inlinks_before_after(pages: pl.DataFrame, suggestions: Sequence[Suggestion]) -> pl.DataFrame:
    """One row per indexable page (url, title, before, added, after): its unique content
    inlinks now, the shown suggestions that point to it (each from another source, and none
    already linked in content), and the sum, as if they were accepted."""
    targets = pl.DataFrame({"url": [s.target_url for s in suggestions]}, schema={"url": pl.String})
    added = targets.group_by("url").agg(pl.len().cast(pl.Int64).alias("added"))
    return (
        pages.filter(pl.col("indexable"))
        .join(added, on="url", how="left")
        .select(
            "url",
            "title",
            pl.col("unique_content_inlinks").fill_null(0).cast(pl.Int64).alias("before"),
            pl.col("added").fill_null(0),
        )
        .with_columns((pl.col("before") + pl.col("added")).alias("after"))
        .sort("url")
    )


def inlink_buckets(inlinks: pl.DataFrame) -> list[tuple[str, int, int]]:
    """(label, pages before, pages after) for each bucket of :data:`INLINK_BUCKETS`."""
    rows = []
    for low, high, label in INLINK_BUCKETS:
        counts = []
        for column in ("before", "after"):
            inside = pl.col(column) >= low
            if high is not None:
                inside &= pl.col(column) <= high
            counts.append(inlinks.filter(inside).height)
        rows.append((label, counts[0], counts[1]))
    return rows


def deep_pages(pages: pl.DataFrame, inlinks: pl.DataFrame, limit: int) -> Table:
    """Indexable pages deeper than the deep threshold or unreachable, the deepest first, with
    their content inlinks and the shown suggestions that would link them."""
    deep = (
        pages.filter(pl.col("indexable") & pl.col("is_deep").fill_null(False))
        .join(inlinks.select("url", "added"), on="url", how="left")
        .sort(["click_depth", "url"], descending=[True, False], nulls_last=False)
        .select(
            "url",
            "title",
            "click_depth",
            pl.col("unique_content_inlinks").alias("content_inlinks"),
            pl.col("added").fill_null(0).alias("suggested_inlinks"),
        )
    )
    return Table(tuple(deep.columns), tuple(deep.head(limit).iter_rows()), deep.height)


def whatif_summary(
    crawl: ReportCrawl,
    pages: pl.DataFrame,
    links: pl.DataFrame,
    suggestions: Sequence[Suggestion],
) -> WhatIfSummary | None:
    """What implementing the shown suggestions does to orphans, click depth and PageRank
    (``linkpipe whatif``'s summary, computed without writing; ``pages`` and ``links`` as
    :func:`~linkpipe.lib.stages.link_graph.graph_inputs` reads them); None without
    suggestions."""
    if not pages.height or not suggestions:
        return None
    added = [(s.source_url, s.target_url) for s in suggestions]
    frame = whatif_pages(pages, links, crawl.start_url, added, crawl.deep_threshold)
    return summarise(frame, crawl.crawl_id, WHATIF_SCENARIO, len(added), 0, crawl.deep_threshold)


def project_2d(
    matrix: NDArray[np.float32],
) -> tuple[NDArray[np.float64], tuple[float, float]]:
    """Rows of ``matrix`` on its first two principal components, and the share of variance
    each explains; the sign of each axis is fixed (its largest loading is positive)."""
    n = matrix.shape[0]
    coords = np.zeros((n, 2), dtype=np.float64)
    if n < 2 or matrix.ndim != 2 or matrix.shape[1] == 0:
        return coords, (0.0, 0.0)
    centred = matrix.astype(np.float64) - matrix.mean(axis=0, dtype=np.float64)
    values, vectors = np.linalg.eigh(centred.T @ centred)
    order = np.argsort(values)[::-1][:2]
    axes = vectors[:, order]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), range(axes.shape[1])])
    coords[:, : axes.shape[1]] = centred @ axes
    total = float(values.clip(min=0).sum())
    shares = [float(values[i]) / total if total > 0 else 0.0 for i in order]
    shares += [0.0] * (2 - len(shares))
    return coords, (shares[0], shares[1])


def cluster_map(points: pl.DataFrame, max_points: int = MAP_MAX_POINTS) -> ClusterMap | None:
    """The clustered pages (``read_cluster_points``) placed in 2D; None when none."""
    if points.height == 0:
        return None
    coords, explained = project_2d(_vectors(points["embedding"]))
    placed = points.drop("embedding").with_columns(
        pl.Series("x", coords[:, 0]), pl.Series("y", coords[:, 1])
    )
    if placed.height > max_points:
        keep = np.unique(np.linspace(0, placed.height - 1, max_points).astype(np.int64))
        placed = placed[keep]
    return ClusterMap(placed, explained, points.height)


def _vectors(embeddings: pl.Series) -> NDArray[np.float32]:
    """A ``FLOAT[]`` column (one length) as an (n, dim) float32 matrix."""
    lengths = embeddings.list.len().unique().to_list()
    if len(lengths) != 1:
        raise ValueError(f"page vectors of different lengths: {sorted(lengths)}")
    matrix: NDArray[np.float32] = (
        embeddings.list.to_array(int(lengths[0])).to_numpy().astype(np.float32)
    )
    return matrix
