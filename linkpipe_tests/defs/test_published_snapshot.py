"""The published_snapshot asset keeps as many crawls as the run asks for, not a fixed 7."""

import duckdb

from linkpipe.defs.runner import run_graph
from linkpipe.lib.run_status import finish_run
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.storage import open_db, write_partition


def test_published_snapshot_keeps_the_crawls_the_run_asks_for(tmp_path, fake_model):
    db = tmp_path / "p.duckdb"
    crawl_ids = [f"c{i:02d}" for i in range(9)]
    for crawl_id in crawl_ids:
        register_crawl(db, crawl_id, "http://s.test/", "crawler", "", {})
        with open_db(db) as con:
            write_partition(
                con, crawl_id, {"crawl_links": [{"source_url": crawl_id, "target_url": "x"}]}
            )
            finish_run(con, crawl_id, "complete")
    run_graph(db, "c08", fake_model, stages=("published_snapshot",), keep_crawls=8)
    published = tmp_path / "p.published.duckdb"
    con = duckdb.connect(str(published), read_only=True)
    kept = [r[0] for r in con.execute("SELECT crawl_id FROM crawl_links ORDER BY 1").fetchall()]
    con.close()
    assert kept == crawl_ids[1:]
    run_graph(db, "c08", fake_model, stages=("published_snapshot",), keep_crawls=2)
    con = duckdb.connect(str(published), read_only=True)
    kept = [r[0] for r in con.execute("SELECT crawl_id FROM crawl_links ORDER BY 1").fetchall()]
    con.close()
    assert kept == ["c07", "c08"]
