"""Shards of a page step run in parallel processes and give exactly the rows of a serial run."""

from pathlib import Path

import duckdb
import pytest

from linkpipe.defs.runner import run_graph
from linkpipe.defs.shard_pool import default_workers
from linkpipe.lib.stages.crawl_export import register_crawl

TABLES = {
    "page_summaries": "url, summary, summary_hash",
    "page_embeddings": "url, text_hash, embedding",
    "candidate_pairs": "source_url, target_url, semantic_sim, lexical_sim, anchor_text, anchor_start",
    "link_opportunities": "source_url, target_url, rank, score, anchor_text, reason",
}


def _run(tmp: Path, base_url: str, workers: int, model: str) -> Path:
    db = tmp / f"w{workers}" / "linkpipe.duckdb"
    register_crawl(db, "c1", base_url + "/", "crawler", "", {"max_pages": 300})
    run_graph(db, "c1", model, workers=workers)
    return db


def _rows(db: Path, table: str, columns: str) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(f"SELECT {columns} FROM {table} ORDER BY ALL").fetchall()
    finally:
        con.close()


def test_parallel_shards_write_the_rows_of_a_serial_run(tmp_path, demo_site, fake_model):
    serial = _run(tmp_path, demo_site.base_url, 1, fake_model)
    parallel = _run(tmp_path, demo_site.base_url, 2, fake_model)
    for table, columns in TABLES.items():
        expected = _rows(serial, table, columns)
        assert expected, table
        assert _rows(parallel, table, columns) == expected, table
    con = duckdb.connect(str(parallel), read_only=True)
    shards = con.execute("SELECT DISTINCT shard FROM page_summaries ORDER BY 1").fetchall()
    con.close()
    assert shards == [(0,), (1,), (2,), (3,)]


@pytest.mark.parametrize(("env", "expected"), [("3", 3), ("9", 4), ("1", 1), ("", None)])
def test_default_workers_follows_cores_and_the_environment(monkeypatch, env, expected):
    monkeypatch.setenv("LINKPIPE_WORKERS", env)
    workers = default_workers(4)
    assert 1 <= workers <= 4
    if expected is not None:
        assert workers == expected

