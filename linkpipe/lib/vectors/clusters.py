"""Topic clusters over page embeddings (FAISS k-means), bridge pages and cluster gaps."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import faiss
import numpy as np

from linkpipe.lib.content.summaries import content_words


def choose_k(n: int) -> int:
    """Number of clusters for ``n`` pages: about sqrt(n/2), at least 1."""
    return max(1, min(n, round(math.sqrt(n / 2))))


def cluster_pages(
    urls: list[str],
    vectors: np.ndarray,
    titles: dict[str, str],
    content_links: set[tuple[str, str]],
    k: int | None = None,
    bridge_margin: float = 0.03,
    gap_density: float = 0.1,
    seed: int = 0,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(topic_clusters rows, cluster_summary rows) for one crawl."""
    n = len(urls)
    if n == 0:
        return [], []
    k = k or choose_k(n)
    x = np.ascontiguousarray(vectors, dtype=np.float32)
    if k == 1:
        centroids = x.mean(axis=0, keepdims=True)
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
        centroids = km.centroids
    centroids = centroids / np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
    sims = x @ centroids.T
    order = np.argsort(-sims, axis=1)
    assign = order[:, 0]
    members: dict[int, list[str]] = {}
    for url, c in zip(urls, assign, strict=True):
        members.setdefault(int(c), []).append(url)
    labels = {c: _label([titles.get(u, "") for u in us]) for c, us in members.items()}
    rows = []
    for i, url in enumerate(urls):
        first = int(order[i, 0])
        second = int(order[i, 1]) if k > 1 else None
        is_bridge = bool(
            second is not None
            and sims[i, first] - sims[i, second] <= bridge_margin
            and len(members.get(second, [])) > 0
        )
        rows.append(
            {
                "url": url,
                "cluster_id": first,
                "cluster_label": labels[first],
                "centroid_sim": round(float(sims[i, first]), 6),
                "is_bridge": is_bridge,
                "second_cluster_id": second if is_bridge else None,
            }
        )
    summary = []
    for c, us in sorted(members.items()):
        inside = set(us)
        links = sum(1 for s, t in content_links if s in inside and t in inside)
        possible = len(us) * (len(us) - 1)
        density = links / possible if possible else 0.0
        summary.append(
            {
                "cluster_id": c,
                "cluster_label": labels[c],
                "size": len(us),
                "internal_content_links": links,
                "link_density": round(density, 6),
                "is_gap": len(us) >= 3 and density < gap_density,
            }
        )
    return rows, summary


def _label(titles: list[str], words: int = 3) -> str:
    """The most common content words of the members' titles."""
    counts = Counter(w for t in titles for w in set(content_words(t)))
    return " / ".join(w for w, _ in counts.most_common(words)) or "misc"
