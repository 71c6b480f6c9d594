"""The searches a refresh's candidate shard takes from the previous crawl instead of querying
the indexes: the embedding hits (:mod:`~linkpipe.lib.links.kept_hits`) and TF-IDF lists
(:mod:`~linkpipe.lib.links.kept_lexical`) of the sources no change reaches."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import duckdb
import polars as pl

from linkpipe.lib.links.kept_hits import Hits, StoredHitUrls, kept_hits
from linkpipe.lib.links.kept_lexical import kept_lists
from linkpipe.lib.links.kept_list import KeptList
from linkpipe.lib.links.retrieval import CandidateLimits, search_depth
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.stages.candidate_previous import (
    changed_pages,
    changed_rows,
    changed_vectors,
    previous_hits,
)
from linkpipe.lib.vectors.ann import AnnIndex


@dataclass(frozen=True)
class Searching:
    """What a shard searches: the site, its index (``salt``: see
    :func:`~linkpipe.lib.links.kept_hits.search_salt`), the shard's number and the candidates
    a source gets."""

    site: SiteContext
    ann: AnnIndex
    salt: str
    shard: int
    limits: CandidateLimits


class KeptSearches(NamedTuple):
    """The embedding hits and TF-IDF lists taken from the previous crawl, by source, and the
    stored hit URLs of the sources searched again (the gate reads them: ``SourceGate``)."""

    hits: dict[str, Hits]
    lists: dict[str, KeptList]
    urls: Mapping[str, list[str]]


def kept_searches(
    con: duckdb.DuckDBPyConnection,
    previous: str,
    searching: Searching,
    pages: Mapping[str, str],
    earlier: Mapping[str, str],
) -> KeptSearches:
    """The embedding hits and TF-IDF lists of the shard's sources that no change reaches
    (:mod:`~linkpipe.lib.links.kept_hits`, :mod:`~linkpipe.lib.links.kept_lexical`), taken
    from the previous crawl instead of searched; ``pages``, ``earlier``: this and the
    previous crawl's page fact digests (a source whose facts changed searches: its vector,
    TF-IDF row or links are not those it searched with)."""
    site = searching.site
    moved = changed_pages(pages, earlier)
    stored = previous_hits(con, previous, searching.shard, searching.salt, moved)
    if stored.is_empty():
        return KeptSearches({}, {}, {})
    vectors = changed_vectors(con, previous, moved, site.vectors, site.row_of)
    index, tfidf = site.models.index, site.models.tfidf
    rows = changed_rows(con, previous, moved, index, tfidf.row_of)

    def asked(source: str) -> int:
        return search_depth(searching.limits, len(site.content_links.get(source, ())))

    hits = kept_hits(stored, searching.ann, site.vectors, site.row_of, vectors, asked)
    searched = stored.filter(~pl.col("source_url").is_in(list(hits))).select(
        "source_url", "gate_hits"
    )
    lists = kept_lists(stored, index, tfidf.row_of, rows)
    return KeptSearches(hits, lists, StoredHitUrls(searched))
