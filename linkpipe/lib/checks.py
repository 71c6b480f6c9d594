"""Data checks of the stored tables: the rules each asset's rows must satisfy before the next
asset reads them. Each check runs one query of ``sql/read/check_*.sql`` on an open connection
and returns a :class:`CheckOutcome` (passed, one line saying why, figures). Dagster runs them as
blocking asset checks (``linkpipe/defs/checks.py``); nothing here imports Dagster.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb

from linkpipe.lib.storage import fetch_dicts

CheckValue = int | str | list[str]
"""A figure of a check: a count, a word, or example URLs."""

UNIQUE_URL_QUERIES = {
    "crawl_pages": "read/check_crawl_pages_urls",
    "indexable_pages": "read/check_indexable_pages_urls",
}
"""The tables whose URLs must be unique per crawl, and the query that counts their copies."""

# A serialized FAISS index starts with a four-letter type code, the dimension (int32) and the
# number of vectors it holds (int64, little-endian), whatever the index type (flat, IVF, HNSW).
FAISS_HEADER_BYTES = 16


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check: whether it passed, one line saying why, and its figures."""

    passed: bool
    description: str
    metadata: dict[str, CheckValue] = field(default_factory=dict)


def _examples(value: Sequence[str] | None) -> list[str]:
    return list(value or [])


def _outcome(passed: bool, ok: str, failed: str, row: dict[str, Any]) -> CheckOutcome:
    """The outcome of a query row whose ``examples`` list the offending rows."""
    examples = _examples(row.pop("examples", None))
    metadata: dict[str, CheckValue] = {k: int(v) for k, v in row.items()}
    if passed:
        return CheckOutcome(True, ok, metadata)
    metadata["examples"] = examples
    shown = "; ".join(examples[:3])
    return CheckOutcome(False, f"{failed} (e.g. {shown})" if shown else failed, metadata)


def unique_urls(con: duckdb.DuckDBPyConnection, table: str, crawl_id: str) -> CheckOutcome:
    """Every URL appears once in ``table`` (crawl_pages or indexable_pages) for the crawl."""
    if table not in UNIQUE_URL_QUERIES:
        raise ValueError(f"no unique-URL check for table {table!r}")
    row = fetch_dicts(con, UNIQUE_URL_QUERIES[table], [crawl_id])[0]
    duplicated = int(row["duplicated_urls"])
    return _outcome(
        duplicated == 0,
        f"{row['urls']} URLs in {table}, each once",
        f"URLs with more than one row in {table} of crawl {crawl_id}: {duplicated}",
        row,
    )


def vectors_match_pages(con: duckdb.DuckDBPyConnection, crawl_id: str, shard: int) -> CheckOutcome:
    """page_embeddings holds one vector per page of page_summaries with a summary (the pages
    the stage embeds), made from that page's summary (its text hash is the summary hash)."""
    row = fetch_dicts(con, "read/check_embedded_pages", [crawl_id, shard])[0]
    pages, vectors = int(row["pages"]), int(row["vectors"])
    problems = sum(int(row[k]) for k in row if k not in ("pages", "vectors", "examples"))
    return _outcome(
        problems == 0,
        f"{vectors} vectors for {pages} summarised pages",
        f"vectors of crawl {crawl_id} shard {shard} that do not match its {pages} summarised "
        f"pages: {problems}",
        row,
    )


def faiss_rows(header: bytes) -> int:
    """The number of vectors a serialized FAISS index holds, read from its first 16 bytes."""
    if len(header) < FAISS_HEADER_BYTES:
        raise ValueError("a FAISS index header has 16 bytes")
    return int.from_bytes(header[8:16], "little", signed=True)


def faiss_rows_match_vectors(con: duckdb.DuckDBPyConnection, crawl_id: str) -> CheckOutcome:
    """The crawl has one stored FAISS index, and its rows, its recorded count and its URL list
    all equal the crawl's vectors in page_embeddings."""
    rows = fetch_dicts(con, "read/check_ann_index_rows", [crawl_id])
    if len(rows) != 1:
        return CheckOutcome(
            False,
            f"crawl {crawl_id} has {len(rows)} stored FAISS indexes, not 1",
            {"indexes": len(rows)},
        )
    row = rows[0]
    figures: dict[str, CheckValue] = {
        "faiss_rows": faiss_rows(bytes(row["index_header"])),
        "n_vectors": int(row["n_vectors"]),
        "urls": int(row["urls"]),
        "vectors": int(row["vectors"]),
        "urls_without_vector": int(row["urls_without_vector"]),
    }
    counts = {figures[k] for k in ("faiss_rows", "n_vectors", "urls", "vectors")}
    if len(counts) == 1 and figures["urls_without_vector"] == 0:
        return CheckOutcome(
            True, f"{figures['faiss_rows']} FAISS rows for as many vectors", figures
        )
    detail = ", ".join(f"{k} {v}" for k, v in figures.items())
    return CheckOutcome(
        False, f"FAISS index of crawl {crawl_id} does not match its vectors: {detail}", figures
    )


def no_self_or_linked_pairs(con: duckdb.DuckDBPyConnection, crawl_id: str) -> CheckOutcome:
    """No suggestion links a page to itself or repeats a link its source already has in its
    content (link_edges, position 'content')."""
    row = fetch_dicts(con, "read/check_opportunity_pairs", [crawl_id])[0]
    self_pairs, linked = int(row["self_pairs"]), int(row["already_linked_pairs"])
    return _outcome(
        self_pairs + linked == 0,
        f"{row['pairs']} suggested pairs, none to itself or already linked in content",
        f"suggestions of crawl {crawl_id} to the page itself: {self_pairs}, to a target the "
        f"source already links in its content: {linked}",
        row,
    )


def anchors_inside_sentences(con: duckdb.DuckDBPyConnection, crawl_id: str) -> CheckOutcome:
    """Every in-sentence suggestion's anchor is the text at its offsets of the source's main
    text, and lies inside its sentence there."""
    row = fetch_dicts(con, "read/check_anchor_placements", [crawl_id])[0]
    misplaced = int(row["misplaced"])
    return _outcome(
        misplaced == 0,
        f"{row['anchors']} in-sentence anchors, each inside its sentence",
        f"misplaced in-sentence anchors of crawl {crawl_id}: {misplaced} of {row['anchors']}",
        row,
    )
