"""Embedding hits a refresh takes from the previous crawl instead of searching the index.

The gate (:mod:`source_gate`) stores with each source the embedding hits retrieval read (URLs
and similarities, up to the ``k``-th unlinked one or all of them) and how many hits the search
returned. A source's search would find the same hits again when nothing it reads can have
moved:

* the index is of the same kind, lists and probes and the same model (the *search salt*):
  exact search ranks every vector, an IVF index with the same lists probes the same lists for
  the same query and holds an unchanged vector in the same list;
* the source's own stored facts did not change (its vector and links, hence its search
  depth, are the previous crawl's);
* no changed vector reaches the hits read: every page whose vector changed, came or went has,
  with its old vector and with its new one, a similarity to the source below that of the last
  hit read (:data:`MARGIN` below it: the product here is not the index's). An unchanged page
  keeps its similarity and its place among the others, so the hits read, their order and the
  ones beyond them that retrieval does not read are what they were. When every hit was read
  and the search returned fewer than it asked for, any change reaches the source.

The hits kept are the stored ones mapped to this crawl's index rows; a source whose hits were
not all read gets one empty hit after them (row -1), so that what the gate and retrieval read
of its hits (:func:`~gate_reads.read_depth`, whether every hit was read) is what the search
gave. Tested to give the rows of a recomputation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
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
        when none changed), a chunk of vectors at a time (memory for :data:`PRODUCT_CELLS`)."""
        best = np.full(len(vectors), -np.inf, dtype=np.float64)
        for changed in (self.old, self.new):
            if not len(changed):
                continue
            step = max(1, PRODUCT_CELLS // len(changed))
            for lo in range(0, len(vectors), step):
                part = (vectors[lo : lo + step] @ changed.T).max(axis=1)
                best[lo : lo + step] = np.maximum(best[lo : lo + step], part)
        return best


PRODUCT_CELLS = 1 << 22  # similarities held at a time (16 MB of float32)


def kept_hits(
    stored: pl.DataFrame,
    ann: AnnIndex,
    vectors: np.ndarray,
    row_of: Mapping[str, int],
    changed: ChangedVectors,
    asked: Callable[[str], int],
) -> dict[str, Hits]:
    """The hits of each source of ``stored`` (``source_url, gate_hits, gate_sims,
    hits_searched``: unchanged sources searched on an index of this crawl's salt) that no
    change reaches (see the module), by source; ``vectors`` and ``row_of``: the site's
    vectors and each page's row in them, ``asked``: the hits a source's search asks for."""
    rows = stored.filter(pl.col("source_url").is_in(list(row_of)))
    if rows.is_empty():
        return {}
    sources = rows["source_url"].to_list()
    reach = changed.reach(vectors[[row_of[s] for s in sources]])
    ids_all = _index_rows(rows["gate_hits"], ann)
    ends = np.cumsum(rows["gate_hits"].list.len().to_numpy())
    out: dict[str, Hits] = {}
    for i, (source, sims_bytes, count) in enumerate(
        rows.select("source_url", "gate_sims", "hits_searched").iter_rows()
    ):
        hit_sims = np.frombuffer(sims_bytes, dtype=np.float32)
        ids = ids_all[ends[i - 1] if i else 0 : ends[i]]
        if len(ids) != len(hit_sims) or not len(ids) or count < len(ids):
            continue  # stored hits and similarities disagree: search
        if (ids == GONE).any():
            continue  # a page no longer in the index
        if count == len(ids) and count < asked(source):
            continue  # every hit read, fewer than asked for: any page may join them
        if reach[i] >= float(hit_sims[-1]) - MARGIN:
            continue  # a changed vector reaches the hits read
        if count > len(ids):  # hits beyond those read: one empty hit stands for them
            hit_sims = np.append(hit_sims, np.float32(-np.inf))
            ids = np.append(ids, -1)
        out[source] = (hit_sims, ids)
    return out


GONE = -2  # the index row of a stored hit whose page is no longer in the index


class StoredHitUrls(Mapping[str, list[str]]):
    """The stored hit URLs (best first) of sources, read from the stored frame (``source_url,
    gate_hits``) when asked for: the gate compares a searched source's similarities with the
    stored ones page by page when a touched page moved among its hits."""

    def __init__(self, stored: pl.DataFrame) -> None:
        self._hits = stored["gate_hits"]
        self._row = {s: i for i, s in enumerate(stored["source_url"].to_list())}

    def __getitem__(self, source: str) -> list[str]:
        found: list[str] = self._hits[self._row[source]].to_list()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)


def _index_rows(hits: pl.Series, ann: AnnIndex) -> np.ndarray:
    """This crawl's index row of every stored hit URL, the sources' lists one after another
    ('' for no hit: -1; :data:`GONE` for a page no longer in the index)."""
    flat = hits.explode().drop_nulls()
    rows = flat.replace_strict(ann.urls, range(len(ann.urls)), default=GONE, return_dtype=pl.Int64)
    ids: np.ndarray = rows.to_numpy().copy()
    ids[(flat == "").to_numpy()] = -1
    return ids
