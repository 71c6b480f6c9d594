"""Shards of a page step run in parallel processes and give exactly the rows of a serial run."""

import os
from pathlib import Path

import duckdb
import pytest

from linkpipe.defs.runner import run_graph
from linkpipe.defs.shard_pool import default_workers
from linkpipe.lib.links import site_models
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.text import page_pass

TABLES = {
    "page_summaries": "url, summary, summary_hash",
    "page_embeddings": "url, text_hash, embedding",
    "candidate_pairs": "source_url, target_url, semantic_sim, lexical_sim, anchor_text, anchor_start",
    "link_opportunities": "source_url, target_url, rank, score, anchor_text, reason",
    "site_terms": "term_id, term, doc_freq, idf",
    "site_page_terms": "url, term_ids, weights",
    "site_names": "name_key, target_url, phrase, mentioned_by, linked_by, self_mention",
}


def _run(tmp: Path, base_url: str, workers: int, model: str) -> tuple[Path, dict[str, int]]:
    """The run's database, and the processes below this one as each step began."""
    db = tmp / f"w{workers}" / "linkpipe.duckdb"
    register_crawl(db, "c1", base_url + "/", "crawler", "", {"max_pages": 300})
    below: dict[str, int] = {}

    def count(label: str) -> None:
        below[label] = len(_descendants(os.getpid()))

    run_graph(db, "c1", model, workers=workers, on_step=count)
    return db, below


def _descendants(pid: int) -> list[int]:
    """Processes below ``pid`` (read from /proc)."""
    parent_of = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        parent_of[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        children = [p for p, parent in parent_of.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _rows(db: Path, table: str, columns: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(f"SELECT {columns} FROM {table} ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_parallel_shards_write_the_rows_of_a_serial_run(
    tmp_path, demo_site, fake_model, monkeypatch
):
    serial, _ = _run(tmp_path, demo_site.base_url, 1, fake_model)
    # the site models' passes in worker processes too (from 20,000 pages otherwise)
    monkeypatch.setattr(page_pass, "MIN_PARALLEL_PAGES", 0)
    monkeypatch.setattr(page_pass, "BATCH_PAGES", 7)
    monkeypatch.setattr(site_models, "BATCH_PAGES", 9)
    parallel, below = _run(tmp_path, demo_site.base_url, 2, fake_model)
    for table, columns in TABLES.items():
        expected = _rows(serial, table, columns)
        assert expected, table
        assert _rows(parallel, table, columns) == expected, table
    con = duckdb.connect(str(parallel), read_only=True)
    shards = con.execute("SELECT DISTINCT shard FROM page_summaries ORDER BY 1").fetchall()
    con.close()
    assert shards == [(0,), (1,), (2,), (3,)]
    # the two workers serve both page steps, then end before scoring (with what they hold)
    assert below["candidates and anchors"] - below["scoring and clusters"] == 2


@pytest.mark.parametrize(("env", "expected"), [("3", 3), ("9", 4), ("1", 1), ("", None)])
def test_default_workers_follows_cores_and_the_environment(monkeypatch, env, expected):
    monkeypatch.setenv("LINKPIPE_WORKERS", env)
    workers = default_workers(4)
    assert 1 <= workers <= 4
    if expected is not None:
        assert workers == expected
