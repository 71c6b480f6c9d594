"""The published_snapshot asset prunes the crawls beyond those the run keeps, in the database
and in Dagster, and publishes the kept ones: on every path a run takes (the CLI, the nightly
schedule and its automation sensor, the UI), since the asset is the sink of each."""

import json

import duckdb
import numpy as np

from linkpipe.defs.assets import published_snapshot
from linkpipe.defs.jobs import materialize_step
from linkpipe.defs.partitions import CRAWLS
from linkpipe.defs.resources import LinkpipeSettings, resources_for
from linkpipe.defs.runner import instance_for, run_graph
from linkpipe.lib.mapped import mapped_root, shared_arrays
from linkpipe.lib.run_status import finish_run, start_run
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.storage import open_db, write_partition


def _crawls(db, crawl_ids, instance, finished=True):
    for crawl_id in crawl_ids:
        register_crawl(db, crawl_id, "http://s.test/", "crawler", "", {})
        instance.add_dynamic_partitions(CRAWLS, [crawl_id])
        with open_db(db) as con:
            write_partition(
                con, crawl_id, {"crawl_links": [{"source_url": crawl_id, "target_url": "x"}]}
            )
            if finished:
                finish_run(con, crawl_id, "complete")


def _rows(path, table="crawl_links"):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [r[0] for r in con.execute(f"SELECT crawl_id FROM {table} ORDER BY 1").fetchall()]
    finally:
        con.close()


def test_published_snapshot_keeps_the_crawls_the_run_asks_for(tmp_path, fake_model):
    db = tmp_path / "p.duckdb"
    instance = instance_for(db)
    crawl_ids = [f"c{i:02d}" for i in range(9)]
    _crawls(db, crawl_ids, instance)
    run_graph(db, "c08", fake_model, stages=("published_snapshot",), keep_crawls=8)
    published = tmp_path / "p.published.duckdb"
    assert _rows(published) == crawl_ids[1:]
    assert _rows(db) == _rows(db, "crawls") == crawl_ids[1:]  # c00 pruned from the database
    run_graph(db, "c08", fake_model, stages=("published_snapshot",), keep_crawls=2)
    assert _rows(published) == _rows(db) == _rows(db, "crawls") == ["c07", "c08"]
    assert sorted(instance.get_dynamic_partitions(CRAWLS)) == ["c07", "c08"]


def test_a_scheduled_run_prunes_old_crawls_and_keeps_its_own(tmp_path, fake_model):
    """As the automation sensor runs it after a nightly crawl: Dagster materializes the asset
    for the new partition (no CLI around it). The new crawl, complete once the asset runs, is
    one of the N crawls kept, as after `linkpipe run`; a failed crawl older than it goes."""
    db = tmp_path / "n.duckdb"
    instance = instance_for(db)
    _crawls(db, ["d1", "d2", "d3"], instance)
    for old in ("d1", "d2", "d3"):  # arrays candidate steps left
        shared_arrays(db, old, ("site context", "x"), lambda: {"a": np.zeros(2)})
    _crawls(db, ["f1"], instance, finished=False)
    with open_db(db) as con:
        finish_run(con, "f1", "failed", "the crawl failed")
    _crawls(db, ["d4"], instance, finished=False)
    start_run(db, "d4", "scoring")  # d4 is the crawl of the run: not finished yet
    settings = LinkpipeSettings(db_path=str(db), model=fake_model, keep_crawls=2)
    result = materialize_step([published_snapshot], "d4", instance, resources_for(settings), {}, {})
    assert result.success
    assert _rows(db, "crawls") == _rows(db, "v_crawl_runs") == ["d3", "d4"]
    assert sorted(instance.get_dynamic_partitions(CRAWLS)) == ["d3", "d4"]
    assert _rows(tmp_path / "n.published.duckdb") == ["d3", "d4"]
    folders = [p for p in mapped_root(db).iterdir() if p.is_dir()]
    left = [json.loads((p / "arrays.json").read_text())["crawl_id"] for p in folders]
    assert left == ["d3"]  # d1's and d2's went with them
    (metadata,) = [
        e.materialization.metadata for e in result.all_events if e.is_step_materialization
    ]
    assert metadata["pruned"].value == "d1, d2, f1"
