"""Everything one report shows, gathered from an open read-only connection and computed
before anything is written: a failure here leaves no file behind."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import duckdb
import polars as pl

from linkpipe.lib.links.whatif import WhatIfSummary
from linkpipe.lib.report.data import (
    DEFAULT_MAX_ROWS,
    DEFAULT_MAX_SUGGESTIONS,
    CrawlDiff,
    ReportCrawl,
    Suggestion,
    Table,
    read_cluster_points,
    read_crawl_diff,
    read_pages,
    read_suggestions,
    read_table,
    resolve_crawl,
)
from linkpipe.lib.report.figures import (
    ClusterMap,
    cluster_map,
    deep_pages,
    inlink_buckets,
    inlinks_before_after,
    whatif_summary,
)
from linkpipe.lib.stages.link_graph import graph_inputs


@dataclass(frozen=True)
class Report:
    """The content of one report (see :func:`gather_report`)."""

    crawl: ReportCrawl
    generated_at: dt.datetime
    suggestions: list[Suggestion]  # the best by score, at most max_suggestions
    suggestions_total: int  # the crawl's suggestions in all
    indexable_pages: int
    inlinks: pl.DataFrame  # inlinks_before_after
    inlink_buckets: list[tuple[str, int, int]]
    whatif: WhatIfSummary | None  # None without suggestions
    orphans: Table
    deep_pages: Table
    clusters: ClusterMap | None  # None when the crawl has no topic clusters
    diff: CrawlDiff | None  # None for the site's first complete crawl


def gather_report(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str | None = None,
    max_suggestions: int = DEFAULT_MAX_SUGGESTIONS,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Report:
    """The report of ``crawl_id`` (default: the latest complete crawl): its ``max_suggestions``
    best suggestions, what accepting them does to inlinks and the link graph, and at most
    ``max_rows`` rows of each other table. Raises ReportError for an unknown or unfinished
    crawl or a database without a complete crawl."""
    crawl = resolve_crawl(con, crawl_id)
    suggestions, total = read_suggestions(con, crawl.crawl_id, max_suggestions)
    pages = read_pages(con, crawl.crawl_id)
    graph_pages, graph_links = graph_inputs(con, crawl.crawl_id)
    inlinks = inlinks_before_after(pages, suggestions)
    return Report(
        crawl=crawl,
        generated_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
        suggestions=suggestions,
        suggestions_total=total,
        indexable_pages=inlinks.height,
        inlinks=inlinks,
        inlink_buckets=inlink_buckets(inlinks),
        whatif=whatif_summary(crawl, graph_pages, graph_links, suggestions),
        orphans=read_table(con, "select_report_orphans", [crawl.crawl_id]).head(max_rows),
        deep_pages=deep_pages(pages, inlinks, max_rows),
        clusters=cluster_map(read_cluster_points(con, crawl.crawl_id)),
        diff=read_crawl_diff(con, crawl, max_rows),
    )
