"""A real database for the report tests: the bundled demo site through the whole graph with the
real model (one complete crawl), and a copy with an earlier crawl for the crawl diff."""

import shutil
from pathlib import Path

import pytest

from linkpipe.defs.runner import run_graph
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL
from linkpipe_tests.report.earlier_crawl import EarlierCrawl, add_earlier_crawl

CRAWL = "c1"
EARLIER = "c0"


@pytest.fixture(scope="session")
def report_db(tmp_path_factory, demo_site) -> Path:
    """The demo site's graph, crawl c1, run by the Dagster runner as `linkpipe run` does."""
    db = tmp_path_factory.mktemp("report") / "linkpipe.duckdb"
    register_crawl(db, CRAWL, demo_site.base_url + "/", "crawler", "", {"max_pages": 300})
    run_graph(db, CRAWL, DEFAULT_MODEL)
    return db


@pytest.fixture(scope="session")
def two_crawl_db(tmp_path_factory, report_db: Path) -> tuple[Path, EarlierCrawl]:
    """A copy of ``report_db`` with c0, a complete crawl a day before c1 that differs from it
    by one content link (suggested in c0, linked in c1) and two suggestions."""
    db = tmp_path_factory.mktemp("report-history") / "linkpipe.duckdb"
    shutil.copy(report_db, db)
    return db, add_earlier_crawl(db, CRAWL, EARLIER)
