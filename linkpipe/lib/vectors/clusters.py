"""Topic clusters over page embeddings (FAISS k-means), bridge pages and cluster gaps."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import faiss
import numpy as np
import polars as pl
from numpy.typing import NDArray

from linkpipe.lib.vectors.cluster_labels import PageHeadings, cluster_labels

CLUSTER_SCHEMA = pl.Schema(
    {
        "url": pl.String,
        "cluster_id": pl.Int32,
        "cluster_label": pl.String,
        "centroid_sim": pl.Float64,
        "is_bridge": pl.Boolean,  # close to a second cluster's centroid too
        "second_cluster_id": pl.Int32,  # that cluster, null when not a bridge
    }
)
"""Columns of a ``topic_clusters`` row (``crawl_id`` is added when written)."""

SUMMARY_SCHEMA = pl.Schema(
    {
        "cluster_id": pl.Int32,
        "cluster_label": pl.String,
        "size": pl.Int32,
        "internal_content_links": pl.Int32,
        "link_density": pl.Float64,  # content links inside / possible ordered pairs
        "is_gap": pl.Boolean,  # loosely linked inside: a cluster gap
    }
)
"""Columns of a ``cluster_summary`` row (``crawl_id`` is added when written)."""


@dataclass
class Clustering:
    """Each page's similarity to every centroid, clusters ranked best first per page, and the
    member URLs and label of each non-empty cluster."""

    sims: NDArray[np.float32]  # (pages, k)
    order: NDArray[np.intp]  # (pages, k): cluster ids by decreasing similarity
    members: dict[int, list[str]]
    labels: dict[int, str]


def choose_k(n: int) -> int:
    """Number of clusters for ``n`` pages: about sqrt(n/2), at least 1."""
    return max(1, min(n, round(math.sqrt(n / 2))))


def cluster_pages(
    urls: list[str],
    vectors: NDArray[np.floating],
    texts: Mapping[str, str | PageHeadings],
    content_links: set[tuple[str, str]],
    k: int | None = None,
    bridge_margin: float = 0.03,
    gap_density: float = 0.1,
    seed: int = 0,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(``topic_clusters`` frame, ``cluster_summary`` frame) for one crawl; see
    :data:`CLUSTER_SCHEMA` and :data:`SUMMARY_SCHEMA`. ``texts`` gives each page's title (or
    title, H1 and headings) for the cluster labels."""
    if not urls:
        return pl.DataFrame(schema=CLUSTER_SCHEMA), pl.DataFrame(schema=SUMMARY_SCHEMA)
    k = k or choose_k(len(urls))
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    clustering = assign_clusters(urls, x, spherical_centroids(x, k, seed), texts)
    return (
        page_clusters(urls, clustering, k, bridge_margin),
        cluster_summary(clustering, content_links, gap_density),
    )


def spherical_centroids(x: NDArray[np.float32], k: int, seed: int) -> NDArray[np.float32]:
    """``k`` unit-length centroids of the rows of ``x`` (spherical k-means; the mean for one)."""
    if k == 1:
        centroids: NDArray[np.float32] = x.mean(axis=0, keepdims=True)
    else:
        km = faiss.Kmeans(
            x.shape[1],
            k,
            niter=25,
            seed=seed,
            spherical=True,
            verbose=False,
            min_points_per_centroid=1,  # small sites: no "please provide more points" warning
        )
        km.train(x)
        if km.centroids is None:  # set by train(); None only before training
            raise RuntimeError("k-means training produced no centroids")
        centroids = km.centroids
    norms = np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
    unit: NDArray[np.float32] = centroids / norms
    return unit


def assign_clusters(
    urls: list[str],
    x: NDArray[np.float32],
    centroids: NDArray[np.float32],
    texts: Mapping[str, str | PageHeadings],
) -> Clustering:
    """Each page to its most similar centroid; clusters labelled from their members' titles and
    headings (see :mod:`linkpipe.lib.vectors.cluster_labels`)."""
    sims: NDArray[np.float32] = x @ centroids.T
    order = np.argsort(-sims, axis=1)
    members: dict[int, list[str]] = {}
    for url, c in zip(urls, order[:, 0], strict=True):
        members.setdefault(int(c), []).append(url)
    labels = cluster_labels(
        {c: [_headings(texts.get(u, "")) for u in us] for c, us in members.items()}
    )
    return Clustering(sims, order, members, labels)


def page_clusters(
    urls: list[str], clustering: Clustering, k: int, bridge_margin: float
) -> pl.DataFrame:
    """One :data:`CLUSTER_SCHEMA` row per page, in ``urls`` order. A page is a bridge when its
    second-best (non-empty) cluster is within ``bridge_margin`` of its best."""
    sims, order = clustering.sims, clustering.order
    rows = []
    for i, url in enumerate(urls):
        first = int(order[i, 0])
        second = int(order[i, 1]) if k > 1 else None
        is_bridge = bool(
            second is not None
            and sims[i, first] - sims[i, second] <= bridge_margin
            and len(clustering.members.get(second, [])) > 0
        )
        rows.append(
            (
                url,
                first,
                clustering.labels[first],
                round(float(sims[i, first]), 6),
                is_bridge,
                second if is_bridge else None,
            )
        )
    return pl.DataFrame(rows, schema=CLUSTER_SCHEMA, orient="row")


def cluster_summary(
    clustering: Clustering, content_links: set[tuple[str, str]], gap_density: float
) -> pl.DataFrame:
    """One :data:`SUMMARY_SCHEMA` row per non-empty cluster, by cluster id. A cluster of three
    or more pages whose content-link density is under ``gap_density`` is a gap."""
    cluster_of = {url: c for c, us in clustering.members.items() for url in us}
    inside = Counter(  # one pass over the links (a pass per cluster was clusters x links)
        c for s, t in content_links if (c := cluster_of.get(s, -1)) == cluster_of.get(t, -2)
    )
    rows = []
    for c, us in sorted(clustering.members.items()):
        links = inside[c]
        possible = len(us) * (len(us) - 1)
        density = links / possible if possible else 0.0
        rows.append(
            (
                c,
                clustering.labels[c],
                len(us),
                links,
                round(density, 6),
                len(us) >= 3 and density < gap_density,
            )
        )
    return pl.DataFrame(rows, schema=SUMMARY_SCHEMA, orient="row")


def _headings(text: str | PageHeadings) -> PageHeadings:
    """A page's label text; a bare string is its title."""
    return text if isinstance(text, PageHeadings) else PageHeadings(text)
