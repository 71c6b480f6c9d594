"""What the editor's report shows, read from an open (read-only) connection: the crawl, its
best suggestions with the anchor's place in the sentence, its pages' link metrics, orphans,
clustered page vectors and the crawl diff against the complete crawl before it."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import duckdb
import polars as pl

from linkpipe.lib.run_config import deep_threshold
from linkpipe.lib.storage import fetch_dicts, fetch_frame, load_sql

DEFAULT_MAX_SUGGESTIONS = 5_000
DEFAULT_MAX_ROWS = 1_000  # rows of each other table (orphans, deep pages, changes)


class ReportError(ValueError):
    """The report cannot be made as asked; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class ReportCrawl:
    """The crawl a report shows and the complete crawl of its site before it (None if none)."""

    crawl_id: str
    start_url: str
    created_at: dt.datetime | None
    previous_crawl_id: str | None
    deep_threshold: int


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One suggested link as the report shows it; ``sentence_anchor_start`` is the anchor's
    offset in ``sentence`` (None without an in-sentence placement)."""

    source_url: str
    target_url: str
    source_title: str | None
    target_title: str | None
    source_type: str | None
    target_type: str | None
    rank: int
    score: float
    confidence: float | None
    anchor_text: str | None
    sentence: str | None
    sentence_anchor_start: int | None
    placement: str
    reason: str | None
    decision: str | None

    def sentence_parts(self) -> tuple[str, str, str] | None:
        """(text before the anchor, the anchor, text after it) of the sentence; None when the
        row has no sentence or its anchor is not at its offset in it."""
        sentence, anchor, start = self.sentence, self.anchor_text, self.sentence_anchor_start
        if not sentence or not anchor or start is None:
            return None
        end = start + len(anchor)
        if start < 0 or sentence[start:end] != anchor:
            return None
        return sentence[:start], anchor, sentence[end:]


@dataclass(frozen=True, slots=True)
class Table:
    """Rows of a query for a table of the report, at most a cap of them; ``total`` counts all."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    total: int

    def head(self, limit: int) -> Table:
        """The first ``limit`` rows; ``total`` unchanged."""
        return Table(self.columns, self.rows[:limit], self.total)


@dataclass(frozen=True, slots=True)
class CrawlDiff:
    """The crawl diff: changes counted by (kind, change), and the first rows of each kind."""

    old_crawl_id: str
    new_crawl_id: str
    counts: tuple[tuple[str, str, int], ...]  # (suggestions | links, status or change, n)
    suggestions: Table
    links: Table


def resolve_crawl(con: duckdb.DuckDBPyConnection, crawl_id: str | None) -> ReportCrawl:
    """``crawl_id`` (default: the latest complete crawl), which must be complete."""
    if crawl_id is None:
        latest = fetch_dicts(con, "read/select_latest_crawl")
        if not latest:
            raise ReportError("no complete crawl in the database: run `linkpipe run` first")
        crawl_id = str(latest[0]["crawl_id"])
    rows = fetch_dicts(con, "read/select_report_crawl", [crawl_id])
    if not rows:
        known = [str(r["crawl_id"]) for r in fetch_dicts(con, "read/select_report_complete_crawls")]
        raise ReportError(
            f"unknown crawl: {crawl_id} (complete crawls, newest first: {', '.join(known)})"
            if known
            else f"unknown crawl: {crawl_id} (the database has no complete crawl)"
        )
    row = rows[0]
    if row["status"] != "complete":
        raise ReportError(
            f"crawl {crawl_id} is not complete (status {row['status']}): "
            "its report would show partial data"
        )
    config: dict[str, Any] = json.loads(row["config_json"] or "{}")
    return ReportCrawl(
        crawl_id=crawl_id,
        start_url=str(row["start_url"] or ""),
        created_at=row["created_at"],
        previous_crawl_id=row["previous_crawl_id"],
        deep_threshold=deep_threshold(config),
    )


def read_suggestions(
    con: duckdb.DuckDBPyConnection, crawl_id: str, limit: int
) -> tuple[list[Suggestion], int]:
    """The crawl's ``limit`` best suggestions by score, and how many it has in all."""
    rows = fetch_dicts(con, "read/select_report_suggestions", [crawl_id, limit])
    total = int(rows[0]["total"]) if rows else 0
    names = [f.name for f in fields(Suggestion)]
    return [Suggestion(**{name: row[name] for name in names}) for row in rows], total


def read_table(con: duckdb.DuckDBPyConnection, name: str, params: Sequence[object]) -> Table:
    """The rows of ``sql/read/<name>.sql``; its ``total`` column, when it has one, is left out
    of the rows and counts every row before the query's LIMIT."""
    cur = con.execute(load_sql(f"read/{name}"), list(params))
    columns = [d[0] for d in cur.description or []]
    rows = cur.fetchall()
    if "total" not in columns:
        return Table(tuple(columns), tuple(rows), len(rows))
    at = columns.index("total")
    total = int(rows[0][at]) if rows else 0
    kept = tuple(tuple(v for i, v in enumerate(row) if i != at) for row in rows)
    return Table(tuple(c for c in columns if c != "total"), kept, total)


def read_pages(con: duckdb.DuckDBPyConnection, crawl_id: str) -> pl.DataFrame:
    """Every page of the crawl's link graph: title, type, inlinks, click depth, orphan, deep."""
    return fetch_frame(con, "read/select_report_pages", [crawl_id])


def read_cluster_points(con: duckdb.DuckDBPyConnection, crawl_id: str) -> pl.DataFrame:
    """The crawl's clustered pages with their embedding, cluster id and label, and title."""
    return fetch_frame(con, "read/select_report_cluster_points", [crawl_id])


def read_crawl_diff(
    con: duckdb.DuckDBPyConnection, crawl: ReportCrawl, limit: int
) -> CrawlDiff | None:
    """What changed since the crawl before ``crawl``; None when it is the site's first."""
    old = crawl.previous_crawl_id
    if old is None:
        return None
    new = crawl.crawl_id
    counts = fetch_dicts(con, "read/select_report_change_counts", [old, new, old, new])
    return CrawlDiff(
        old_crawl_id=old,
        new_crawl_id=new,
        counts=tuple((str(r["kind"]), str(r["change"]), int(r["n"])) for r in counts),
        suggestions=read_table(con, "select_report_suggestion_changes", [old, new, limit]),
        links=read_table(con, "select_report_link_changes", [old, new, limit]),
    )
