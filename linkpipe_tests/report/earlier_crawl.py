"""An earlier complete crawl of the same site, made from a real crawl's rows with three known
changes, so that the crawl diff (suggestion_changes, link_changes) has something to show
without running the graph twice."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

COPIED = ("crawl_pages", "indexable_pages", "link_edges", "page_link_metrics", "link_opportunities")


@dataclass(frozen=True)
class EarlierCrawl:
    """The pairs changed between the earlier crawl and the real one."""

    implemented: tuple[str, str]  # suggested before, linked in content now (link added)
    new: tuple[str, str]  # the real crawl's best suggestion, not suggested before
    disappeared: tuple[str, str]  # suggested before, neither suggested nor linked now


def add_earlier_crawl(db: Path, crawl_id: str, earlier: str) -> EarlierCrawl:
    """Register ``earlier`` as a complete crawl of ``crawl_id``'s start URL a day before it:
    its pages, links, metrics and suggestions, except that one content link of ``crawl_id`` is
    missing and was suggested instead, its best suggestion is missing, and one more pair, of
    pages that do not link, was suggested."""
    con = duckdb.connect(str(db))
    try:
        implemented = _pair(con, """SELECT e.source_url, e.resolved_url FROM link_edges e
            JOIN indexable_pages s ON s.crawl_id = e.crawl_id AND s.url = e.source_url AND s.indexable
            JOIN indexable_pages t ON t.crawl_id = e.crawl_id AND t.url = e.resolved_url AND t.indexable
            WHERE e.crawl_id = ? AND e.position = 'content' AND e.source_url <> e.resolved_url
            ORDER BY e.source_url, e.resolved_url LIMIT 1""", crawl_id)  # fmt: skip
        new = _pair(
            con,
            """SELECT source_url, target_url FROM link_opportunities
            WHERE crawl_id = ? ORDER BY score DESC, source_url, target_url LIMIT 1""",
            crawl_id,
        )
        disappeared = _pair(con, """SELECT s.url, t.url FROM indexable_pages s, indexable_pages t
            WHERE s.crawl_id = ? AND t.crawl_id = s.crawl_id AND s.indexable AND t.indexable
              AND s.url <> t.url
              AND NOT EXISTS (SELECT 1 FROM link_edges e WHERE e.crawl_id = s.crawl_id
                              AND e.source_url = s.url AND e.resolved_url = t.url)
              AND NOT EXISTS (SELECT 1 FROM link_opportunities o WHERE o.crawl_id = s.crawl_id
                              AND o.source_url = s.url AND o.target_url = t.url)
            ORDER BY s.url DESC, t.url LIMIT 1""", crawl_id)  # fmt: skip
        con.execute("BEGIN")
        con.execute(
            "INSERT INTO crawls SELECT * REPLACE (? AS crawl_id, created_at - INTERVAL 1 DAY "
            "AS created_at) FROM crawls WHERE crawl_id = ?",
            [earlier, crawl_id],
        )
        con.execute(
            "INSERT INTO crawl_runs (crawl_id, status, finished_at) "
            "SELECT ?, 'complete', created_at FROM crawls WHERE crawl_id = ?",
            [earlier, earlier],
        )
        for table in COPIED:
            con.execute(
                f"INSERT INTO {table} SELECT * REPLACE (?::VARCHAR AS crawl_id) FROM {table} "
                "WHERE crawl_id = ?",
                [earlier, crawl_id],
            )
        con.execute(
            "DELETE FROM link_edges WHERE crawl_id = ? AND source_url = ? AND resolved_url = ?",
            [earlier, *implemented],
        )
        con.execute(
            "DELETE FROM link_opportunities WHERE crawl_id = ? AND source_url = ? "
            "AND target_url = ?",
            [earlier, *new],
        )
        for source, target in (implemented, disappeared):
            con.execute(
                "INSERT INTO link_opportunities SELECT * REPLACE (?::VARCHAR AS source_url, "
                "?::VARCHAR AS target_url) FROM link_opportunities WHERE crawl_id = ? LIMIT 1",
                [source, target, earlier],
            )
        con.execute("COMMIT")
    finally:
        con.close()
    return EarlierCrawl(implemented, new, disappeared)


def _pair(con: duckdb.DuckDBPyConnection, sql: str, crawl_id: str) -> tuple[str, str]:
    row = con.execute(sql, [crawl_id]).fetchone()
    assert row is not None, sql
    return str(row[0]), str(row[1])
