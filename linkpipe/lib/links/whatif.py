"""What-if: a crawl's link graph before and after chosen suggestions are implemented.

*Before* is the crawl's graph rebuilt from its crawled pages and links by the code of the
``link_graph`` stage (:func:`linkpipe.lib.links.graph.build_link_graph`), so it equals the stored
``page_link_metrics``; *after* adds each chosen suggestion as a followed content link. Per page:
PageRank, click depth and orphan status both ways (the ``whatif_pages`` table), and a site
summary: orphans fixed, pages moved to click depth <= the deep threshold, PageRank Gini, biggest
PageRank gains. Counts and Gini are over indexable pages, the pages that take part.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl

from linkpipe.lib.links.graph import build_link_graph, links_frame
from linkpipe.lib.run_config import deep_threshold
from linkpipe.lib.stages.link_graph import graph_inputs
from linkpipe.lib.storage import (
    StorageError,
    crawl_row,
    execute,
    execute_with_frame,
    fetch_dicts,
    open_db,
    transaction,
)

WHATIF_VIEW = "_linkpipe_whatif"
TOP_GAINS = 5

WHATIF_SCHEMA = pl.Schema(
    {
        "url": pl.String,
        "indexable": pl.Boolean,
        "links_added": pl.Int32,
        "pagerank_before": pl.Float64,
        "pagerank_after": pl.Float64,
        "pagerank_gain": pl.Float64,
        "click_depth_before": pl.Int32,
        "click_depth_after": pl.Int32,
        "is_orphan_before": pl.Boolean,
        "is_orphan_after": pl.Boolean,
    }
)
"""Columns of a ``whatif_pages`` row (``crawl_id`` and ``scenario`` are added when written)."""


class WhatIfError(ValueError):
    """A scenario that cannot be computed; the message is one line for the user."""


@dataclass(frozen=True)
class Scenario:
    """The suggestions to implement: accepted decisions (``top`` None), or the ``top`` best
    suggestions of each source page."""

    top: int | None = None

    @property
    def name(self) -> str:
        """``accepted`` or ``top-N``: the scenario's key in ``whatif_pages``."""
        return "accepted" if self.top is None else f"top-{self.top}"


@dataclass(frozen=True)
class PageGain:
    """A page's PageRank before and after."""

    url: str
    before: float
    after: float


@dataclass(frozen=True)
class WhatIfSummary:
    """What implementing a scenario does to the site (counts over indexable pages)."""

    crawl_id: str
    scenario: str
    links: int  # suggested links chosen
    already_linked: int  # of them, pairs the crawl's content already links
    orphans_before: int
    orphans_after: int
    orphans_fixed: int
    deep_threshold: int
    moved_up: int  # from depth > deep_threshold (or unreachable) to <= deep_threshold
    gini_before: float
    gini_after: float
    top_gains: tuple[PageGain, ...]


def gini(values: Sequence[float] | np.ndarray[Any, Any]) -> float:
    """Gini coefficient of non-negative values: 0 when all are equal, towards 1 when one page
    holds everything; 0 for no values or a zero sum."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    n, total = len(x), float(x.sum())
    if n == 0 or total <= 0:
        return 0.0
    ranks = np.arange(1, n + 1, dtype=np.float64)
    return float(((2 * ranks - n - 1) * x).sum() / (n * total))


def whatif_pages(
    pages: pl.DataFrame,
    links: pl.DataFrame,
    start_url: str,
    added: Sequence[tuple[str, str]],
    deep: int,
) -> pl.DataFrame:
    """One :data:`WHATIF_SCHEMA` row per crawled URL, sorted by URL: the graph of ``pages`` and
    ``links`` (as :func:`~linkpipe.lib.stages.link_graph.graph_inputs` reads them) before and
    after the ``added`` (source, target) pairs become followed content links."""
    before = build_link_graph(pages, links, start_url, deep).metrics
    more = pl.concat([links, _content_links(added)], how="vertical")
    after = build_link_graph(pages, more, start_url, deep).metrics
    added_in = Counter(target for _, target in added)
    frame = before.select(
        "url",
        "indexable",
        pl.col("url").replace_strict(added_in, default=0).alias("links_added"),
        pl.col("pagerank").alias("pagerank_before"),
        pl.col("click_depth").alias("click_depth_before"),
        pl.col("is_orphan").alias("is_orphan_before"),
    ).join(
        after.select(
            "url",
            pl.col("pagerank").alias("pagerank_after"),
            pl.col("click_depth").alias("click_depth_after"),
            pl.col("is_orphan").alias("is_orphan_after"),
        ),
        on="url",
        how="left",
    )
    frame = frame.with_columns(
        (pl.col("pagerank_after") - pl.col("pagerank_before")).alias("pagerank_gain")
    )
    return frame.select(list(WHATIF_SCHEMA)).cast(WHATIF_SCHEMA).sort("url")


def _content_links(pairs: Iterable[tuple[str, str]]) -> pl.DataFrame:
    """Each (source, target) pair as a followed internal content link."""
    return links_frame(
        {"source_url": s, "target_url": t, "anchor_text": "", "position": "content"}
        | {"nofollow": False, "internal": True}
        for s, t in pairs
    )


def summarise(
    frame: pl.DataFrame, crawl_id: str, scenario: str, links: int, already: int, deep: int
) -> WhatIfSummary:
    """The site summary of a :func:`whatif_pages` frame, over its indexable pages."""
    pages = frame.filter(pl.col("indexable"))
    orphan_before, orphan_after = pages["is_orphan_before"], pages["is_orphan_after"]
    shallow_after = pages["click_depth_after"].fill_null(deep + 1) <= deep
    deep_before = pages["click_depth_before"].fill_null(deep + 1) > deep
    gains = pages.filter(pl.col("pagerank_gain") > 0).sort(
        ["pagerank_gain", "url"], descending=[True, False]
    )
    return WhatIfSummary(
        crawl_id=crawl_id,
        scenario=scenario,
        links=links,
        already_linked=already,
        orphans_before=int(orphan_before.sum()),
        orphans_after=int(orphan_after.sum()),
        orphans_fixed=int((orphan_before & ~orphan_after).sum()),
        deep_threshold=deep,
        moved_up=int((deep_before & shallow_after).sum()),
        gini_before=gini(pages["pagerank_before"].to_numpy()),
        gini_after=gini(pages["pagerank_after"].to_numpy()),
        top_gains=tuple(
            PageGain(r["url"], r["pagerank_before"], r["pagerank_after"])
            for r in gains.head(TOP_GAINS).iter_rows(named=True)
        ),
    )


def summary_lines(summary: WhatIfSummary) -> list[str]:
    """The summary as the lines ``linkpipe whatif`` prints."""
    s = summary
    already = f" ({s.already_linked} already in content)" if s.already_linked else ""
    lines = [
        f"what-if on crawl {s.crawl_id}, scenario {s.scenario}: "
        f"{s.links} suggested link{'' if s.links == 1 else 's'} implemented{already}",
        f"orphan pages: {s.orphans_before} -> {s.orphans_after} ({s.orphans_fixed} fixed)",
        f"pages moved to click depth <= {s.deep_threshold}: {s.moved_up}",
        f"PageRank Gini: {s.gini_before:.3f} -> {s.gini_after:.3f}",
    ]
    if s.top_gains:
        lines.append("biggest PageRank gains:")
        lines += [
            f"  +{g.after - g.before:.4f}  {g.before:.4f} -> {g.after:.4f}  {g.url}"
            for g in s.top_gains
        ]
    else:
        lines.append("biggest PageRank gains: none")
    return lines


def chosen_links(
    con: duckdb.DuckDBPyConnection, crawl_id: str, scenario: Scenario
) -> list[dict[str, Any]]:
    """The scenario's (source_url, target_url, already_linked) rows for the crawl."""
    if scenario.top is None:
        return fetch_dicts(con, "read/select_whatif_accepted", [crawl_id] * 3)
    return fetch_dicts(con, "read/select_whatif_top", [crawl_id, scenario.top])


def save_whatif(
    con: duckdb.DuckDBPyConnection, crawl_id: str, scenario: str, frame: pl.DataFrame
) -> int:
    """Replace the scenario's rows of ``whatif_pages`` in one transaction; rows written."""
    with transaction(con):
        execute(con, "write/delete_whatif_pages", [crawl_id, scenario])
        execute_with_frame(
            con, "write/insert_whatif_pages", WHATIF_VIEW, frame, [crawl_id, scenario]
        )
    return frame.height


def run_whatif(
    db_path: str | Path, scenario: Scenario, crawl_id: str | None = None
) -> tuple[WhatIfSummary, int]:
    """Compute the scenario on ``crawl_id`` (default: the latest complete crawl), write its
    ``whatif_pages`` rows; (the summary, rows written). Never creates a database."""
    if not Path(db_path).exists():
        raise StorageError(f"database not found: {db_path}")
    with open_db(db_path) as con:
        crawl_id, config, start_url = _crawl(con, crawl_id)
        pages, links = graph_inputs(con, crawl_id)
        chosen = chosen_links(con, crawl_id, scenario)
    if not pages.height:
        raise WhatIfError(f"crawl {crawl_id} has no crawled pages")
    if not chosen:
        raise WhatIfError(_nothing_chosen(crawl_id, scenario))
    deep = deep_threshold(config)
    added = [(r["source_url"], r["target_url"]) for r in chosen]
    frame = whatif_pages(pages, links, start_url, added, deep)
    already = sum(bool(r["already_linked"]) for r in chosen)
    summary = summarise(frame, crawl_id, scenario.name, len(chosen), already, deep)
    with open_db(db_path) as con:
        written = save_whatif(con, crawl_id, scenario.name, frame)
    return summary, written


def _crawl(con: duckdb.DuckDBPyConnection, crawl_id: str | None) -> tuple[str, dict[str, Any], str]:
    """(crawl id, its stored settings, its start URL); the latest complete crawl by default."""
    if crawl_id is None:
        latest = fetch_dicts(con, "read/select_latest_crawl")
        if not latest:
            raise WhatIfError("no complete crawl in the database: run `linkpipe run` first")
        crawl_id = str(latest[0]["crawl_id"])
    row = crawl_row(con, crawl_id)
    if row is None:
        raise WhatIfError(f"unknown crawl: {crawl_id}")
    config: dict[str, Any] = json.loads(row["config_json"] or "{}")
    return crawl_id, config, str(row["start_url"] or "")


def _nothing_chosen(crawl_id: str, scenario: Scenario) -> str:
    """The one-line message for a scenario without suggestions."""
    if scenario.top is None:
        return (
            f"no accepted decisions between pages of crawl {crawl_id}: record some with "
            "`linkpipe review`, or use --top N"
        )
    return f"crawl {crawl_id} has no suggestions"
