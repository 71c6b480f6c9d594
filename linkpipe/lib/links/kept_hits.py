"""Embedding hits a refresh takes from the previous crawl instead of searching the index.

The gate (:mod:`source_gate`) stores with each source the embedding hits retrieval read (URLs
and similarities, up to the ``k``-th unlinked one or all of them) and how many hits the search
returned. A source's search would find the same hits again when nothing it reads can have
moved:

* the index is of the same kind, lists and probes and the same model (the *search salt*):
  exact search ranks every vector, an IVF index with the same lists probes the same lists for
  the same query and holds an unchanged vector in the same list;
* the source itself is not touched (its vector and links, hence its search depth, are the
  previous crawl's);
* no changed vector reaches the hits read: every page whose vector changed, came or went has,
  with its old vector and with its new one, a similarity to the source below that of the last
  hit read (:data:`MARGIN` below it: the product here is not the index's). An unchanged page
  keeps its similarity and its place among the others, so the hits read, their order and the
  ones beyond them that retrieval does not read are what they were. When every hit was read
  and the search returned fewer than it asked for, any change reaches the source.

The hits kept are the stored ones mapped to this crawl's index rows; a source whose hits were
not all read gets one empty hit after them (row -1), so that what the gate and retrieval read
of its hits (:func:`~source_gate.read_depth`, whether every hit was read) is what the search
gave. Tested to give the rows of a recomputation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from linkpipe.lib.vectors.ann import AnnIndex, list_centroids

MARGIN = 1e-5  # a changed vector this close below the last hit read still reaches it
Hits = tuple[np.ndarray, np.ndarray]
"""(similarities float32, index rows int64) of a source's hits, best first."""


def search_salt(ann: AnnIndex, model: str, lexical: str) -> str:
    """What a source's searches depend on beside the vectors and TF-IDF rows: the model, the
    embedding index's kind and probes, an IVF index's list centroids, and (``lexical``) the
    TF-IDF statistics and the lexical index's settings."""
    h = hashlib.sha1(f"{model}|{ann.kind}|{lexical}".encode())
    centroids = list_centroids(ann)
    if centroids is not None:
        h.update(np.ascontiguousarray(centroids, dtype=np.float32).tobytes())
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class ChangedVectors:
    """The vectors of the pages whose vector changed, came or went since the previous crawl:
    the previous crawl's (``old``) and this crawl's (``new``), one row a page that has one."""

    old: np.ndarray
    new: np.ndarray

    def reach(self, vectors: np.ndarray) -> np.ndarray:
        """Each of ``vectors``' highest similarity to an old or new changed vector (-inf
        when none changed)."""
        best = np.full(len(vectors), -np.inf, dtype=np.float64)
        for changed in (self.old, self.new):
            if len(changed) and len(vectors):
                best = np.maximum(best, (vectors @ changed.T).max(axis=1))
        return best


def kept_hits(
    stored: pl.DataFrame,
    ann: AnnIndex,
    vectors: np.ndarray,
    row_of: Mapping[str, int],
    changed: ChangedVectors,
    asked: Callable[[str], int],
) -> dict[str, Hits]:
    """The hits of each source of ``stored`` (``source_url, gate_hits, gate_sims,
    hits_searched``: untouched sources searched on an index of this crawl's salt) that no
    change reaches (see the module), by source; ``vectors`` and ``row_of``: the site's
    vectors and each page's row in them, ``asked``: the hits a source's search asks for."""
    rows = stored.filter(pl.col("source_url").is_in(list(row_of)))
    if rows.is_empty():
        return {}
    sources = rows["source_url"].to_list()
    sims = [np.frombuffer(b, dtype=np.float32) for b in rows["gate_sims"].to_list()]
    reach = changed.reach(vectors[[row_of[s] for s in sources]])
    index_row = {url: i for i, url in enumerate(ann.urls)}
    out: dict[str, Hits] = {}
    for source, urls, hit_sims, count, best in zip(
        sources, rows["gate_hits"].to_list(), sims, rows["hits_searched"].to_list(),
        reach.tolist(), strict=True,
    ):  # fmt: skip
        ids = _rows(urls, index_row)
        if ids is None or len(ids) != len(hit_sims) or not len(ids) or count < len(ids):
            continue
        if count == len(ids) and count < asked(source):
            continue  # every hit read, fewer than asked for: any page may join them
        if best >= float(hit_sims[-1]) - MARGIN:
            continue  # a changed vector reaches the hits read
        if count > len(ids):  # hits beyond those read: one empty hit stands for them
            hit_sims = np.append(hit_sims, np.float32(-np.inf))
            ids = np.append(ids, -1)
        out[source] = (hit_sims, ids)
    return out


def _rows(urls: list[str], row_of: Mapping[str, int]) -> np.ndarray | None:
    """This crawl's index rows of the stored hit URLs ('' for no hit: row -1); None when a
    page is no longer in the index."""
    ids = np.empty(len(urls), dtype=np.int64)
    for i, url in enumerate(urls):
        if not url:
            ids[i] = -1
            continue
        row = row_of.get(url)
        if row is None:
            return None
        ids[i] = row
    return ids
