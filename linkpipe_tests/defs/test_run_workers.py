"""How many worker processes a run's page steps get: one per core for real work, one for a
refresh that changed too little to pay for loading the models twice."""

import pytest

from linkpipe.defs import runner
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.storage import fetch_dicts, host, open_db, write_partition

SITE = "http://site.test/"


def _crawl(db, crawl_id: str, pages: dict[str, str], source: str = "crawler") -> None:
    register_crawl(db, crawl_id, SITE, source, "", {})
    rows = [
        {"url": SITE + u, "shard": 0, "status": 200, "content_hash": h} for u, h in pages.items()
    ]
    rows.append(
        {"url": SITE + "asset.pdf", "shard": 0, "status": 200, "content_hash": ""}
    )  # no HTML
    with open_db(db) as con:
        write_partition(con, crawl_id, {"crawl_pages": rows})


def _work(db, crawl_id: str) -> dict[str, int]:
    with open_db(db) as con:
        return fetch_dicts(con, "read/count_changed_pages", [crawl_id])[0]


@pytest.fixture
def cores(monkeypatch):
    monkeypatch.delenv("LINKPIPE_WORKERS", raising=False)
    monkeypatch.setattr(runner, "default_workers", lambda shards: 2)


def test_a_refresh_counts_its_new_and_changed_pages_against_the_previous_crawl(tmp_path):
    db = tmp_path / "w.duckdb"
    _crawl(db, "c1", {f"p{i}": f"h{i}" for i in range(40)})
    assert _work(db, "c1") == {"pages": 40, "changed": 40}  # a first crawl: everything is new
    pages = {f"p{i}": f"h{i}" for i in range(40)} | {"p3": "edited", "new": "h-new"}
    _crawl(db, "c2", pages)
    assert _work(db, "c2") == {"pages": 41, "changed": 2}  # p3 edited, one new page
    _crawl(db, "c3", pages)
    assert _work(db, "c3") == {"pages": 41, "changed": 0}  # compared with c2, the latest


def test_every_page_of_an_import_is_work(tmp_path):
    db = tmp_path / "w.duckdb"
    _crawl(db, "i1", {"a": "", "b": ""}, source="screaming_frog")
    _crawl(db, "i2", {"a": "", "b": ""}, source="screaming_frog")
    # no HTML to compare: every page (the PDF row too) is summarised and embedded again
    assert _work(db, "i2") == {"pages": 3, "changed": 3}


def test_workers_follow_the_estimated_work_unless_configured(tmp_path, cores, monkeypatch):
    db = tmp_path / "w.duckdb"
    _crawl(db, "c1", {f"p{i}": f"h{i}" for i in range(400)})
    _crawl(db, "c2", {f"p{i}": f"h{i}" for i in range(400)} | {"p1": "edited"})
    each = runner.threads_per_worker(2)
    # 400 new pages: 400 * 0.15 + 400 * 0.008 = 63.2 CPU-s >= 60: both cores
    assert runner.run_workers(db, "c1") == (2, each)
    # one page edited: 0.15 + 40 * 0.008 = 0.47 CPU-s: one worker, one thread, does it all
    assert runner.run_workers(db, "c2") == (1, 1)
    monkeypatch.setenv("LINKPIPE_WORKERS", "2")  # the user's choice stands
    assert runner.run_workers(db, "c2") == (2, each)


def test_the_candidate_step_pays_for_the_sources_a_change_reaches(tmp_path, cores):
    db = tmp_path / "w.duckdb"
    _crawl(db, "c1", {f"p{i}": f"h{i}" for i in range(2000)})
    _crawl(db, "c2", {f"p{i}": f"h{i}" for i in range(2000)} | {"p1": "edited"})
    each = runner.threads_per_worker(2)
    # summaries and embeddings of one edited page: 0.15 CPU-s, in this process
    assert runner.run_workers(db, "c2", site_wide=False) == (1, 1)
    # the candidates of the 40 sources it reaches: 0.15 + 40 * 0.008 = 0.47 CPU-s: one
    assert runner.run_workers(db, "c2", site_wide=True) == (1, 1)
    _crawl(db, "c3", {f"p{i}": f"h{i}" for i in range(2000)} | {f"p{i}": "x" for i in range(200)})
    # 200 edited pages: their summaries (30 CPU-s) in this process, and the candidates of
    # every source they reach (all 2,000: 30 + 16 CPU-s) too
    assert runner.run_workers(db, "c3", site_wide=False) == (1, 1)
    assert runner.run_workers(db, "c3", site_wide=True) == (1, 1)
    _crawl(db, "c4", {f"p{i}": f"h{i}" for i in range(2000)} | {f"p{i}": "y" for i in range(350)})
    # 350 edited pages: 52.5 CPU-s of summaries, in this process; 52.5 + 16 of candidates,
    # on both cores
    assert runner.run_workers(db, "c4", site_wide=False) == (1, 1)
    assert runner.run_workers(db, "c4", site_wide=True) == (2, each)
    # a first crawl of 2,000 pages: both steps on both cores
    assert runner.run_workers(db, "c1", site_wide=False) == (2, each)


def test_a_page_step_never_gets_fewer_workers_than_an_earlier_one_started():
    pool = runner.ShardPool(runner.materialize_shard, 0)
    runner._size_pool(pool, (1, 1))
    assert (pool.workers, pool.threads) == (1, 1)
    runner._size_pool(pool, (2, 1))
    assert (pool.workers, pool.threads) == (2, 1)
    runner._size_pool(pool, (1, 1))  # the two started workers serve this step too
    assert (pool.workers, pool.threads) == (2, 1)


def test_a_one_percent_refresh_of_ten_thousand_pages_runs_its_candidates_in_one_process(
    tmp_path, cores
):
    db = tmp_path / "w.duckdb"
    _crawl(db, "c1", {f"p{i}": f"h{i}" for i in range(10_000)})
    _crawl(db, "c2", {f"p{i}": f"h{i}" for i in range(10_000)} | {f"p{i}": "x" for i in range(100)})
    # 100 edited pages reach ~4,000 sources: 15 + 4,000 * 0.008 = 47 CPU-s (measured: 31-32 in
    # one process, 38-39 in two workers)
    assert runner.run_workers(db, "c2", site_wide=True) == (1, 1)
    _crawl(db, "c3", {f"p{i}": f"h{i}" for i in range(10_000)} | {f"p{i}": "y" for i in range(500)})
    # a 5 % edit reaches every source: 75 + 80 CPU-s, on both cores
    assert runner.run_workers(db, "c3", site_wide=True) == (2, runner.threads_per_worker(2))


def test_a_small_page_step_keeps_the_file_attached_between_its_shards(tmp_path, monkeypatch):
    db = tmp_path / "w.duckdb"
    _crawl(db, "c1", {f"p{i}": f"h{i}" for i in range(400)})
    _crawl(db, "c2", {f"p{i}": f"h{i}" for i in range(400)} | {"p1": "edited"})
    # whatever the workers configured, the estimate says which steps are small
    monkeypatch.setenv("LINKPIPE_WORKERS", "1")
    assert not runner.small_step(db, "c1") and runner.small_step(db, "c2")
    seen: list[bool] = []

    def shard(*args) -> None:  # a shard opens the file: was it still attached from the last?
        seen.append(host.attached(db))
        with open_db(db) as con:
            con.execute("SELECT 1")

    monkeypatch.setattr(runner, "_materialize", shard)
    settings = runner.LinkpipeSettings(db_path=str(db), model="hashing-64")
    pool = runner.ShardPool(runner.materialize_shard, 0)
    runner._size_pool(pool, (1, 1))
    for crawl, small in (("c2", True), ("c1", False)):
        seen.clear()
        runner._run_step([], (True, small), crawl, None, settings, pool)
        # a small step's file stays attached from its first shard to its last, then goes
        assert seen == [False] + [small] * 3 and not host.attached(db)
