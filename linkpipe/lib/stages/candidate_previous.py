"""What a candidate shard reads of the previous crawl: placements by anchor key, row, pair and
gate digests by source (see :mod:`linkpipe.lib.links.source_reuse` and
:mod:`linkpipe.lib.links.source_gate`), and what changed in the site since then. The previous
crawl: the latest earlier crawl of the same start URL with ``candidate_pairs`` rows in the
shard."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import duckdb
import numpy as np
import polars as pl

from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.champion_lists import ChangedRows
from linkpipe.lib.links.kept_hits import ChangedVectors
from linkpipe.lib.links.kept_lexical import aligned_rows, new_rows
from linkpipe.lib.links.previous_rows import ShardPairs, ShardPlacements, name_keys_of
from linkpipe.lib.links.site_context import SINGLE_WORD_ANCHOR_PROBABILITY
from linkpipe.lib.links.site_models import MAX_TEXT_CHARS
from linkpipe.lib.links.source_gate import NameChanges, SiteChanges
from linkpipe.lib.stages.page_embeddings import embedding_matrix
from linkpipe.lib.stages.site_models import texts_changed_since
from linkpipe.lib.storage import fetch_dicts, fetch_frame, fetch_frames
from linkpipe.lib.text.key_pages import pages_holding
from linkpipe.lib.text.lexical_index import LexicalIndex
from linkpipe.lib.text.mentions import MentionConfig
from linkpipe.lib.text.tfidf import TfidfModel


@dataclass(frozen=True)
class PreviousShard:
    """What a shard may reuse of the previous crawl (``crawl_id``; None: there is none)."""

    crawl_id: str | None
    placements: Mapping[str, tuple[AnchorChoice, ...]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # source -> row digest
    pairs: Mapping[str, dict[str, str]] = field(default_factory=dict)  # source -> target -> digest
    targets: Mapping[str, set[str]] = field(default_factory=dict)  # source -> its rows' targets
    gates: dict[str, str] = field(default_factory=dict)  # source -> gate digest
    keys: Mapping[str, list[str]] = field(default_factory=dict)  # source -> its text's name keys
    sims: dict[str, bytes] = field(default_factory=dict)  # source -> its hits' similarities
    texts: dict[str, str] = field(default_factory=dict)  # source -> text its keys are of


NO_PREVIOUS = PreviousShard(None)
READ_ROWS = 100_000  # rows of the previous shard read at a time


def previous_shard(con: duckdb.DuckDBPyConnection, crawl_id: str, shard: int) -> PreviousShard:
    """The shard of the previous crawl: its placements by name key, and by source its row
    digest, pair digests (by target), targets, gate digest, name keys and the text they are
    of (held as columns: :mod:`~linkpipe.lib.links.previous_rows`)."""
    found = fetch_dicts(con, "read/select_previous_candidates_crawl", [crawl_id, shard])
    if not found:
        return NO_PREVIOUS
    previous = found[0]["crawl_id"]
    params = [previous, shard]
    placements = ShardPlacements.of_frames(
        fetch_frames(con, "read/select_shard_placements", params, READ_ROWS)
    )
    pairs = ShardPairs.of_frames(
        fetch_frames(con, "read/select_shard_pair_digests", params, READ_ROWS)
    )
    digests = fetch_dicts(con, "read/select_shard_source_digests", params)
    gates = fetch_dicts(con, "read/select_shard_gate_reads", params)
    return PreviousShard(
        previous,
        placements,
        {r["source_url"]: r["digest"] for r in digests},
        pairs.pair_digests(),
        pairs.targets(),
        {r["source_url"]: r["gate_digest"] for r in gates},
        name_keys_of({r["source_url"]: r["name_keys"] for r in gates}),
        {r["source_url"]: bytes(r["gate_sims"]) for r in gates if r["gate_sims"] is not None},
        {r["source_url"]: r["text_digest"] for r in gates if r["text_digest"] is not None},
    )


def previous_hits(
    con: duckdb.DuckDBPyConnection,
    previous: str,
    shard: int,
    salt: str,
    changed: Iterable[str],
) -> pl.DataFrame:
    """What the previous crawl's gate stored of the searches of the shard's sources searched
    with ``salt`` (``select_shard_kept_hits.sql``) but the ``changed`` pages."""
    frame = fetch_frame(con, "read/select_shard_kept_hits", [previous, shard, salt])
    return frame.filter(~pl.col("source_url").is_in(list(changed)))


def changed_vectors(
    con: duckdb.DuckDBPyConnection,
    previous: str,
    changed: Iterable[str],
    vectors: np.ndarray,
    row_of: Mapping[str, int],
) -> ChangedVectors:
    """The previous crawl's and this crawl's vectors (``vectors``, by ``row_of``) of the
    ``changed`` pages (stored facts changed, came or went)."""
    urls = sorted(changed)
    frame = fetch_frame(con, "read/select_embeddings_of_urls", [previous, urls])
    old = embedding_matrix(frame["embedding"]) if frame.height else vectors[:0]
    new = vectors[[row_of[u] for u in urls if u in row_of]]
    return ChangedVectors(old.reshape(-1, vectors.shape[1]), new)


def changed_rows(
    con: duckdb.DuckDBPyConnection,
    previous: str,
    changed: Iterable[str],
    index: LexicalIndex,
    row_of: Mapping[str, int],
) -> ChangedRows:
    """The previous crawl's and this crawl's TF-IDF rows (``index``'s matrix, by ``row_of``)
    of the ``changed`` pages."""
    urls = sorted(changed)
    frame = fetch_frame(con, "read/select_page_terms_of_urls", [previous, urls])
    width = index.matrix.shape[1]
    at = np.array([row_of.get(u, -1) for u in urls], dtype=np.int64)
    return ChangedRows(aligned_rows(frame, urls, width), new_rows(index, row_of, urls), at)


def page_digests(con: duckdb.DuckDBPyConnection, crawl_id: str) -> dict[str, str]:
    """The digest of each page's stored facts (``select_page_fact_digests.sql``)."""
    rows = fetch_dicts(con, "read/select_page_fact_digests", [crawl_id])
    return {r["url"]: r["digest"] for r in rows}


def changed_pages(pages: Mapping[str, str], before: Mapping[str, str]) -> set[str]:
    """The pages whose stored facts differ, came or went (``pages``, ``before``: this crawl's
    and the previous crawl's fact digests, :func:`page_digests`)."""
    return {u for u in pages.keys() | before.keys() if pages.get(u) != before.get(u)}


def site_changes(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    previous: str,
    pages: Mapping[str, str],
    before: Mapping[str, str],
    names: MentionConfig,
) -> SiteChanges:
    """What changed since ``previous`` (see :class:`SiteChanges`): the pages whose stored facts
    (``pages``, ``before``: this crawl's and the previous crawl's digests, :func:`page_digests`)
    differ, came or went, those whose incoming links or their anchors changed, and those for
    which a one-word name of theirs became or stopped being an anchor (``names``: the name
    index's settings)."""
    changed = changed_pages(pages, before)
    links = "read/select_changed_link_targets"
    relinked = {r["resolved_url"] for r in fetch_dicts(con, links, [crawl_id, previous])}
    params = [crawl_id, previous, names.strength, names.prior_single]
    single = "read/select_changed_single_names"
    rows = fetch_dicts(con, single, [*params, SINGLE_WORD_ANCHOR_PROBABILITY])
    named = {r["target_url"] for r in rows}
    return SiteChanges(frozenset(changed | relinked | named), frozenset(relinked))


def name_changes(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    previous: str,
    tfidf: TfidfModel,
    lengths: Mapping[str, int],
) -> NameChanges:
    """The name keys added and removed since ``previous`` (:class:`NameChanges`), and the
    shard's sources (``lengths``: the characters of each one's main text) that may hold an
    added one
    (:func:`~linkpipe.lib.text.key_pages.pages_holding` over this crawl's ``tfidf``, the
    pages changed since its fit for the words it never saw), those without a row and those
    whose main text is longer than the rows read (every source when any page may hold one)."""
    rows = fetch_dicts(con, "read/select_name_key_changes", [crawl_id, previous])
    added = frozenset(r["name_key"] for r in rows if r["change"] == "added")
    removed = frozenset(r["name_key"] for r in rows if r["change"] == "removed")
    if not added:
        return NameChanges(added, removed)

    def since_fit() -> set[str]:
        fit = fetch_dicts(con, "read/select_site_model", [crawl_id])[0]["fitted_in"]
        return texts_changed_since(con, crawl_id, fit)

    holding = pages_holding(tfidf, [tuple(k.split(" ")) for k in added], since_fit)
    if holding is None:
        return NameChanges(added, removed, frozenset(lengths))
    reach = {
        url
        for url, chars in lengths.items()
        if url in holding or url not in tfidf.row_of or chars > MAX_TEXT_CHARS
    }
    return NameChanges(added, removed, frozenset(reach))
