"""Partition writes are one transaction: replace, never duplicate, never lose on failure."""

import json
import shutil
import subprocess
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pytest

from linkpipe.lib import retention
from linkpipe.lib.hashing import text_hash
from linkpipe.lib.retention import crawls_beyond, prune_crawls, publish_copy
from linkpipe.lib.run_status import finish_run
from linkpipe.lib.storage import (
    CopiedRows,
    StorageError,
    connect,
    connection,
    crawl_row,
    execute,
    fetch_frame,
    iter_dicts,
    open_db,
    rows_to_frame,
    stored_config,
    transaction,
    write_partition,
)


def test_rewrite_replaces_only_its_partition(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        write_partition(
            con,
            "c1",
            {
                "page_embeddings": [
                    {"url": "u1", "text_hash": "h1", "model_id": "m", "embedding": [1.0, 0.0]}
                ]
            },
            shard=0,
        )
        write_partition(
            con,
            "c1",
            {
                "page_embeddings": [
                    {"url": "u2", "text_hash": "h2", "model_id": "m", "embedding": [0.0, 1.0]}
                ]
            },
            shard=1,
        )
        for _ in range(2):  # a re-run gives the same rows, never duplicates
            n = write_partition(
                con,
                "c1",
                {
                    "page_embeddings": [
                        {"url": "u3", "text_hash": "h3", "model_id": "m", "embedding": [0.5, 0.5]}
                    ]
                },
                shard=0,
            )
        assert n == {"page_embeddings": 1}
        rows = con.execute(
            "SELECT crawl_id, shard, url FROM page_embeddings ORDER BY url"
        ).fetchall()
    assert rows == [("c1", 1, "u2"), ("c1", 0, "u3")]


def test_failed_write_keeps_previous_rows(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        write_partition(con, "c1", {"crawl_links": [{"source_url": "a", "target_url": "b"}]})
        bad = pa.table({"source_url": ["a"], "target_url": [None]})  # NOT NULL violated
        with pytest.raises(Exception, match="NOT NULL"):
            write_partition(
                con,
                "c1",
                {
                    "crawl_links": [{"source_url": "x", "target_url": "y"}],
                    "link_edges": bad,
                },
            )
        assert con.execute("SELECT source_url, target_url FROM crawl_links").fetchall() == [
            ("a", "b")
        ]


def test_bad_targets_get_clear_errors(tmp_path):
    (tmp_path / "file.txt").write_text("a file, not a folder")
    with pytest.raises(StorageError, match="cannot open database"):
        connect(tmp_path / "file.txt" / "sub" / "x.duckdb")
    with pytest.raises(StorageError, match="not :memory:"):
        connect(":memory:")
    with pytest.raises(StorageError, match="database not found"):
        connect(tmp_path / "none.duckdb", read_only=True)
    with open_db(tmp_path / "ok.duckdb") as con, pytest.raises(ValueError, match="give a shard"):
        write_partition(con, "c", {"page_summaries": []})


def test_published_copy_is_readable(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        write_partition(con, "c1", {"crawl_links": [{"source_url": "a", "target_url": "b"}]})
    copy = publish_copy(db)
    con = connect(copy, read_only=True)
    assert con.execute("SELECT count(*) FROM crawl_links").fetchone() == (1,)
    con.close()


def _crawl(con, crawl_id, start_url, config_json):
    execute(con, "write/upsert_crawl", [crawl_id, start_url, "crawler", "", config_json])


def _crawl_ids(db):
    with open_db(db, read_only=True) as con:
        return [r[0] for r in con.execute("SELECT crawl_id FROM crawls ORDER BY 1").fetchall()]


def test_transaction_commits_on_success(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con, transaction(con):
        _crawl(con, "c1", "http://a.test/", None)
        _crawl(con, "c2", "http://b.test/", None)
    assert _crawl_ids(db) == ["c1", "c2"]  # visible to a new connection: committed


def test_failure_inside_transaction_rolls_back_and_keeps_earlier_rows(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        with transaction(con):
            _crawl(con, "c1", "http://a.test/", None)
        with pytest.raises(RuntimeError, match="boom"), transaction(con):
            _crawl(con, "c2", "http://b.test/", None)
            raise RuntimeError("boom")
        with transaction(con):  # the connection is usable again after the rollback
            _crawl(con, "c3", "http://c.test/", None)
    assert _crawl_ids(db) == ["c1", "c3"]


class _CursorSpy:
    """Records the batch sizes asked of a DuckDB cursor."""

    def __init__(self, cur):
        self.cur, self.sizes = cur, []

    @property
    def description(self):
        return self.cur.description

    def fetchmany(self, size):
        self.sizes.append(size)
        return self.cur.fetchmany(size)


class _ConnectionSpy:
    def __init__(self, con):
        self.con, self.cursor = con, None

    def execute(self, sql, params):
        self.cursor = _CursorSpy(self.con.execute(sql, params))
        return self.cursor


def test_iter_dicts_streams_every_row_in_batches(tmp_path):
    links = [
        {"source_url": f"http://a.test/{i:04d}", "target_url": "http://a.test/", "internal": True}
        for i in range(1050)
    ]
    with open_db(tmp_path / "t.duckdb") as con:
        write_partition(con, "c1", {"crawl_links": links})
        write_partition(con, "other", {"crawl_links": links[:3]})
        spy = _ConnectionSpy(con)
        rows = iter_dicts(spy, "read/select_links_for_graph", ["c1"], batch=400)
        first = next(rows)
        assert spy.cursor.sizes == [400]  # one batch fetched for the first row, not the table
        rest = list(rows)
    assert spy.cursor.sizes == [400, 400, 400, 400]  # 400 + 400 + 250, then an empty batch
    got = sorted(r["source_url"] for r in [first, *rest])
    assert got == [link["source_url"] for link in links]
    assert list(first) == [
        "source_url",
        "target_url",
        "anchor_text",
        "position",
        "nofollow",
        "internal",
    ]
    assert first["target_url"] == "http://a.test/" and first["internal"] is True


def test_crawl_row_and_stored_config_of_registered_and_unknown_crawls(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        _crawl(con, "c1", "http://a.test/", json.dumps({"graph": {"deep_threshold": 2}}))
        _crawl(con, "c2", "http://b.test/", None)
        row = crawl_row(con, "c1")
        assert crawl_row(con, "nope") is None
    assert row == {
        "crawl_id": "c1",
        "start_url": "http://a.test/",
        "source": "crawler",
        "source_path": "",
        "config_json": '{"graph": {"deep_threshold": 2}}',
    }
    assert stored_config(db, "c1") == {"graph": {"deep_threshold": 2}}
    assert stored_config(db, "c2") == {}  # registered without settings
    assert stored_config(db, "nope") == {}


def test_frames_arrow_streams_and_rows_are_written(tmp_path):
    db = tmp_path / "t.duckdb"
    edge = {"source_url": "a", "target_url": "b", "resolved_url": "b", "nofollow": False}
    with open_db(db) as con:
        written = write_partition(
            con,
            "c1",
            {
                "link_edges": pl.DataFrame([edge]),
                "crawl_links": iter([pa.table({"source_url": ["s"], "target_url": ["t"]})]),
                "topic_clusters": [{"url": "u", "cluster_id": 3}, {"url": "v"}],  # v: NULLs
                "cluster_summary": pa.Table.from_pylist([]),  # no rows, no columns
            },
        )
        assert written == {
            "link_edges": 1,
            "crawl_links": 1,
            "topic_clusters": 2,
            "cluster_summary": 0,
        }
        assert con.execute(
            "SELECT crawl_id, source_url, target_url FROM crawl_links"
        ).fetchall() == [("c1", "s", "t")]
        assert con.execute(
            "SELECT crawl_id, source_url, resolved_url, anchor_text, nofollow FROM link_edges"
        ).fetchall() == [("c1", "a", "b", None, False)]
        assert con.execute(
            "SELECT crawl_id, url, cluster_id FROM topic_clusters ORDER BY url"
        ).fetchall() == [("c1", "u", 3), ("c1", "v", None)]
        frame = rows_to_frame([{"url": "u", "size": 2}, {"url": "v"}], ["url", "size", "x"])
    assert frame.to_dicts() == [
        {"url": "u", "size": 2, "x": None},
        {"url": "v", "size": None, "x": None},
    ]


def test_fetch_frame_reads_columns(tmp_path):
    with open_db(tmp_path / "t.duckdb") as con:
        write_partition(
            con,
            "c1",
            {
                "page_embeddings": pl.DataFrame(
                    {
                        "url": ["b", "a"],
                        "text_hash": ["h2", "h1"],
                        "model_id": ["m", "m"],
                        "embedding": [[0.0, 1.0], [0.5, 0.25]],
                    }
                )
            },
            shard=2,
        )
        frame = fetch_frame(con, "read/select_crawl_embeddings", ["c1"])
        shards = con.execute("SELECT DISTINCT shard FROM page_embeddings").fetchall()
    assert shards == [(2,)]
    assert frame["url"].to_list() == ["a", "b"]
    assert frame["embedding"].to_list() == [[0.5, 0.25], [0.0, 1.0]]


def _summary(url, text):
    return {"url": url, "content_hash": text_hash(text), "main_text": text}


def test_partition_write_copies_chosen_rows_of_another_crawl(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        write_partition(
            con, "c1", {"page_summaries": [_summary("a", "A"), _summary("b", "B")]}, shard=0
        )
        write_partition(con, "c1", {"page_summaries": [_summary("d", "D")]}, shard=1)
        vectors = [{"url": "a", "text_hash": "A.", "model_id": "m", "embedding": [1.0]}]
        write_partition(con, "c1", {"page_embeddings": vectors}, shard=0)
        for _ in range(2):  # a re-run replaces the partition: no duplicates
            written = write_partition(
                con,
                "c2",
                {"page_summaries": [_summary("c", "C")]},
                shard=0,
                copied={
                    "page_summaries": CopiedRows("c1", ["a", "d", "zz"]),  # d: other shard
                    "page_embeddings": CopiedRows("c1", ["a"]),  # replaced though not computed
                },
            )
        assert written == {"page_summaries": 2, "page_embeddings": 1}
        rows = con.execute(
            "SELECT crawl_id, shard, url, content_hash, main_text FROM page_summaries "
            "ORDER BY crawl_id, url"
        ).fetchall()
        copied = con.execute("SELECT crawl_id, shard, url, text_hash FROM page_embeddings")
        assert copied.fetchall() == [("c1", 0, "a", "A."), ("c2", 0, "a", "A.")]
    assert rows == [
        ("c1", 0, "a", text_hash("A"), "A"),
        ("c1", 0, "b", text_hash("B"), "B"),
        ("c1", 1, "d", text_hash("D"), "D"),
        ("c2", 0, "a", text_hash("A"), "A"),
        ("c2", 0, "c", text_hash("C"), "C"),
    ]


def test_failed_copy_keeps_the_previous_partition(tmp_path):
    db = tmp_path / "t.duckdb"
    with open_db(db) as con:
        write_partition(con, "c1", {"page_summaries": [_summary("a", "A")]}, shard=0)
        write_partition(con, "c2", {"page_summaries": [_summary("old", "O")]}, shard=0)
        with pytest.raises(ValueError, match="no column 'nope'"):
            write_partition(
                con,
                "c2",
                {"page_summaries": [_summary("new", "N")]},
                shard=0,
                copied={"page_summaries": CopiedRows("c1", ["a"], key_column="nope")},
            )
        with pytest.raises(ValueError, match="partition being written"):
            write_partition(
                con, "c1", {}, shard=0, copied={"page_summaries": CopiedRows("c1", ["a"])}
            )
        rows = con.execute("SELECT crawl_id, url FROM page_summaries ORDER BY ALL").fetchall()
    assert rows == [("c1", "a"), ("c2", "old")]


def _history(db):
    """Two sites: a.test crawled four times (a1 oldest), b.test once; site-wide tables filled."""
    with open_db(db) as con:
        for crawl_id, site in [("a1", "a"), ("a2", "a"), ("b1", "b"), ("a3", "a"), ("a4", "a")]:
            _crawl(con, crawl_id, f"http://{site}.test/", None)
            finish_run(con, crawl_id, "complete")
            write_partition(
                con, crawl_id, {"crawl_links": [{"source_url": crawl_id, "target_url": "t"}]}
            )
            write_partition(
                con,
                crawl_id,
                {"indexable_pages": [{"url": crawl_id, "shard": 0, "indexable": True}]},
            )
            write_partition(
                con, crawl_id, {"page_summaries": [_summary(crawl_id, crawl_id)]}, shard=2
            )
            write_partition(
                con,
                crawl_id,
                {
                    "page_embeddings": [
                        {
                            "url": crawl_id,
                            "text_hash": crawl_id,
                            "model_id": "m",
                            "embedding": [1.0],
                        }
                    ]
                },
                shard=3,
            )
        execute(con, "write/upsert_decision", ["a1", "t", "accepted", "ed", "2026-01-01", "", "a1"])
        execute(con, "write/insert_signal", ["gsc", "a1", 5, 50, 3.0, 0, 0, 0, "f.csv"])
        con.execute("INSERT INTO embedding_cache VALUES ('a1', 'm', [1.0], current_timestamp)")
        write_partition(
            con, "a4", {"candidate_sources": [{"source_url": "a", "digest": "d"}]}, shard=0
        )
        page_terms = [{"url": "a", "term_ids": [1], "weights": [1.0]}]
        write_partition(con, "a4", {"site_page_terms": page_terms})


def _crawl_rows(con):
    tables = ["crawls", "crawl_links", "indexable_pages", "page_summaries", "page_embeddings"]
    return {
        t: sorted(r[0] for r in con.execute(f"SELECT DISTINCT crawl_id FROM {t}").fetchall())
        for t in tables
    }


def _site_rows(con):
    return [
        con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("link_decisions", "page_signals", "embedding_cache")
    ]


def test_prune_keeps_the_most_recent_crawls_of_each_site(tmp_path):
    db = tmp_path / "t.duckdb"
    _history(db)
    with open_db(db) as con:
        assert prune_crawls(con, 2) == ["a1", "a2"]
        assert prune_crawls(con, 2) == []  # nothing more to prune
        kept = ["a3", "a4", "b1"]
        assert _crawl_rows(con) == dict.fromkeys(_crawl_rows(con), kept)
        assert _site_rows(con) == [1, 1, 1]  # decisions, signals and the cache stay
        assert crawls_beyond(con, 1) == ["a3"]
        with pytest.raises(ValueError, match="at least one"):
            prune_crawls(con, 0)


def test_failed_and_running_crawls_never_push_out_complete_ones(tmp_path):
    db = tmp_path / "t.duckdb"
    _history(db)  # a1..a4 complete
    with open_db(db) as con:
        for crawl_id, status in [("a5", "failed"), ("a6", "killed"), ("a7", "running")]:
            _crawl(con, crawl_id, "http://a.test/", None)
            finish_run(con, crawl_id, status)
        # three unfinished crawls newer than every complete one: all kept, a3 and a4 too
        assert crawls_beyond(con, 2) == ["a1", "a2"]
        finish_run(con, "a7", "complete")  # a7 completes: a5, a6 (older, unfinished) go
        assert crawls_beyond(con, 2) == ["a1", "a2", "a3", "a5", "a6"]
        assert crawls_beyond(con, 5) == ["a5", "a6"]
        for crawl_id in ("a8", "a9"):  # crawl-only runs count, but never push out a7
            _crawl(con, crawl_id, "http://a.test/", None)
            finish_run(con, crawl_id, "partial")
        assert crawls_beyond(con, 1) == ["a1", "a2", "a3", "a4", "a5", "a6", "a8"]


def test_prune_is_one_transaction(tmp_path, monkeypatch):
    db = tmp_path / "t.duckdb"
    _history(db)
    real = retention.execute

    def fail_on_crawls(con, name, params=()):
        if name == "write/delete_crawl":
            raise RuntimeError("disk full")
        real(con, name, params)

    monkeypatch.setattr(retention, "execute", fail_on_crawls)
    with open_db(db) as con, pytest.raises(RuntimeError, match="disk full"):
        prune_crawls(con, 1)
    with open_db(db) as con:  # every partition deleted before the failure is back
        assert _crawl_rows(con)["page_embeddings"] == ["a1", "a2", "a3", "a4", "b1"]


def test_published_copy_holds_the_recent_crawls_and_replaces_the_old_copy(tmp_path, monkeypatch):
    db = tmp_path / "t.duckdb"
    _history(db)
    first = publish_copy(db, keep_crawls=3)
    reader = connect(first, read_only=True)  # an analyst's open session on the first copy
    assert _crawl_rows(reader)["crawls"] == ["a2", "a3", "a4", "b1"]
    second = publish_copy(db, keep_crawls=1)
    assert second == first == tmp_path / "t.published.duckdb"
    assert _crawl_rows(reader)["crawl_links"] == ["a2", "a3", "a4", "b1"]  # still its own file
    reader.close()
    with open_db(db) as con:
        assert _crawl_rows(con)["crawls"] == ["a1", "a2", "a3", "a4", "b1"]  # source untouched
    published = connect(second, read_only=True)
    assert _crawl_rows(published) == dict.fromkeys(_crawl_rows(published), ["a4", "b1"])
    assert _site_rows(published) == [1, 1, 0]  # decisions and signals; no embedding cache
    # nor the candidate step's bookkeeping, nor the models' internals (the source has a4's)
    for table in ("candidate_sources", "site_page_terms"):
        assert published.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table
    assert published.execute("SELECT count(*) FROM v_opportunities").fetchone() == (0,)
    published.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.duckdb", "t.published.duckdb"]

    def broken(con, table, update):
        raise RuntimeError("interrupted")

    monkeypatch.setattr(retention, "_publish_table", broken)
    with pytest.raises(RuntimeError, match="interrupted"):
        publish_copy(db, keep_crawls=3)
    published = connect(second, read_only=True)  # the last good copy is still in place
    assert _crawl_rows(published)["crawls"] == ["a4", "b1"]
    published.close()


_READER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print("open", flush=True)
sys.stdin.readline()  # holds the copy open until told
print(sorted(r[0] for r in con.execute("SELECT crawl_id FROM crawl_links").fetchall()))
"""


def test_an_update_is_written_into_the_published_copy_unless_a_reader_holds_it(tmp_path):
    """The nightly update writes only the changed crawls into the copy readers open (no copy of
    the whole file); an analyst's session open on it in another process keeps its rows, and
    the update then goes to a new file moved into place."""
    db = tmp_path / "t.duckdb"
    _history(db)
    copy = publish_copy(db, keep_crawls=3)
    inode = copy.stat().st_ino
    assert publish_copy(db, keep_crawls=2, refreshed="a4") == copy
    assert copy.stat().st_ino == inode  # written in place
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.duckdb", "t.published.duckdb"]
    with duckdb.connect(str(copy), read_only=True) as con:
        assert _crawl_rows(con)["crawl_links"] == ["a3", "a4", "b1"]
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(copy)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "open"
        publish_copy(db, keep_crawls=1, refreshed="a4")
        held, _ = reader.communicate("go\n", timeout=60)
    finally:
        reader.kill()
    assert held.strip() == "['a3', 'a4', 'b1']"  # the reader's file, untouched
    assert copy.stat().st_ino != inode  # the update went to a new file
    with duckdb.connect(str(copy), read_only=True) as con:
        assert _crawl_rows(con)["crawl_links"] == ["a4", "b1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.duckdb", "t.published.duckdb"]


def test_a_failed_update_in_place_leaves_the_published_copy_as_it_was(tmp_path, monkeypatch):
    db = tmp_path / "t.duckdb"
    _history(db)
    copy = publish_copy(db, keep_crawls=3)
    real = retention._publish_table
    done = []

    def fail_midway(con, table, update):
        if table == "page_summaries":
            raise RuntimeError("disk full")
        real(con, table, update)
        done.append(table)

    monkeypatch.setattr(retention, "_publish_table", fail_midway)
    before = _all_rows(copy)
    with pytest.raises(RuntimeError, match="disk full"):
        publish_copy(db, keep_crawls=1, refreshed="a4")
    assert {"crawl_links", "crawls", "indexable_pages"} <= set(done)  # written, then:
    assert _all_rows(copy) == before  # rolled back with the rest


def _all_rows(path):
    con = connect(path, read_only=True)
    try:
        names = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        return {n: sorted(map(repr, con.execute(f'SELECT * FROM "{n}"').fetchall())) for n in names}
    finally:
        con.close()


def test_an_update_of_the_published_copy_equals_a_copy_built_from_scratch(tmp_path, monkeypatch):
    db = tmp_path / "t.duckdb"
    _history(db)
    copy = publish_copy(db, keep_crawls=3)  # a2, a3, a4, b1
    with open_db(copy) as con:  # a copy by earlier code, which published each page's terms
        con.execute("INSERT INTO site_page_terms VALUES ('a3', 'a', [1], [1.0])")
    with open_db(db) as con:  # a new crawl a5 pushes a2 out; a4 is re-run; a decision comes
        _crawl(con, "a5", "http://a.test/", None)
        finish_run(con, "a5", "complete")
        write_partition(con, "a5", {"crawl_links": [{"source_url": "a5", "target_url": "t"}]})
        write_partition(con, "a4", {"crawl_links": [{"source_url": "a4", "target_url": "u"}]})
        con.execute("INSERT INTO link_decisions (source_url, target_url, decision) "
                    "VALUES ('s2', 't2', 'accepted')")  # fmt: skip
    copied, real_copy = [], shutil.copyfile
    monkeypatch.setattr(retention.shutil, "copyfile", lambda a, b: copied.append(a) or
                        real_copy(a, b))  # fmt: skip
    updated = _all_rows(publish_copy(db, keep_crawls=3, refreshed="a4"))
    assert copied == []  # written into the copy in place, not into a copy of it
    (tmp_path / "t.published.duckdb").unlink()
    assert updated == _all_rows(publish_copy(db, keep_crawls=3))  # built from scratch
    assert copied == []
    published = connect(tmp_path / "t.published.duckdb", read_only=True)
    assert _crawl_rows(published)["crawl_links"] == ["a3", "a4", "a5", "b1"]
    links = published.execute("SELECT target_url FROM crawl_links WHERE crawl_id = 'a4'").fetchall()
    assert links == [("u",)]
    published.close()


def test_the_published_candidate_rows_leave_out_the_reuse_digests(tmp_path):
    """An analyst's copy of a candidate row holds everything but the digests that only reuse
    reads (NULL, built or updated): the same values otherwise, the mention key included."""
    db = tmp_path / "t.duckdb"
    _history(db)
    row = {"source_url": "/s", "target_url": "/t", "semantic_sim": 0.5, "anchor_text": "the t",
           "pair_digest": "d" * 32, "anchor_key": "k" * 32, "name_key": "n" * 32,
           "mention_key": "t"}  # fmt: skip
    with open_db(db) as con:
        for crawl_id in ("a3", "a4"):
            write_partition(con, crawl_id, {"candidate_pairs": [row]}, shard=1)
    query = (
        "SELECT crawl_id, source_url, semantic_sim, anchor_text, mention_key, pair_digest, "
        "anchor_key, name_key FROM candidate_pairs ORDER BY crawl_id"
    )
    built = connect(publish_copy(db, keep_crawls=2), read_only=True)
    expected = [(c, "/s", 0.5, "the t", "t", None, None, None) for c in ("a3", "a4")]
    assert built.execute(query).fetchall() == expected
    built.close()
    with open_db(db) as source:  # the database keeps them
        assert source.execute("SELECT DISTINCT pair_digest FROM candidate_pairs").fetchall() == [
            ("d" * 32,)
        ]
    updated = connect(publish_copy(db, keep_crawls=2, refreshed="a4"), read_only=True)
    assert updated.execute(query).fetchall() == expected
    updated.close()


def test_schema_runs_once_per_version_of_the_sql(tmp_path):
    db = tmp_path / "s.duckdb"
    with open_db(db) as con:
        wanted = con.execute("SELECT sql_hash FROM linkpipe_schema").fetchall()
        assert wanted == [(connection._schema_hash(),)]
        con.execute("DROP VIEW v_opportunities")  # not recreated while the hash matches
    with open_db(db) as con:
        assert con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE view_name = 'v_opportunities'"
        ).fetchone() == (0,)
        con.execute("UPDATE linkpipe_schema SET sql_hash = 'older code'")
    with open_db(db) as con:  # other SQL: the schema and views run again
        assert con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE view_name = 'v_opportunities'"
        ).fetchone() == (1,)
        assert con.execute("SELECT sql_hash FROM linkpipe_schema").fetchall() == wanted


def test_a_file_of_earlier_code_loses_the_pairs_rank_and_keeps_its_rows(tmp_path):
    db = tmp_path / "old.duckdb"
    with open_db(db) as con:  # as written before the rank was dropped
        con.execute("ALTER TABLE candidate_pairs ADD COLUMN semantic_rank INTEGER")
        con.execute(
            "INSERT INTO candidate_pairs (crawl_id, shard, source_url, target_url, semantic_rank,"
            " semantic_sim) VALUES ('c1', 0, '/a', '/b', 3, 0.5)"
        )
        con.execute("UPDATE linkpipe_schema SET sql_hash = 'older code'")
    with open_db(db) as con:
        columns = [r[0] for r in con.execute("DESCRIBE candidate_pairs").fetchall()]
        assert "semantic_rank" not in columns and "semantic_sim" in columns
        assert con.execute(
            "SELECT crawl_id, source_url, target_url, semantic_sim FROM candidate_pairs"
        ).fetchall() == [("c1", "/a", "/b", 0.5)]


def test_one_connection_serves_every_open_of_its_file_inside_the_block(tmp_path):
    from linkpipe.lib.storage import one_connection, open_db

    db, other = tmp_path / "one.duckdb", tmp_path / "other.duckdb"
    with open_db(db) as first, open_db(db) as second:
        assert first is not second  # outside a block: an open each
    with one_connection(db):
        with open_db(db) as a:
            a.execute("CREATE TABLE t (x INT)")
            a.execute("INSERT INTO t VALUES (1)")
        with open_db(db, read_only=True) as b, one_connection(db), open_db(db) as c:
            assert a is b is c  # reads, a nested block and writes share it
            assert b.execute("SELECT x FROM t").fetchall() == [(1,)]
        with open_db(other) as d:
            assert d is not a  # another file has its own
    with open_db(db, read_only=True) as e:  # closed at the end: the file opens read-only again
        assert e is not a and e.execute("SELECT count(*) FROM t").fetchall() == [(1,)]


def test_a_stream_of_frames_with_untyped_and_missing_columns_is_written_in_order(tmp_path):
    frames = [
        pl.DataFrame({"scenario": ["top-1"], "url": ["/a"], "links_added": [None]}),  # no type
        pl.DataFrame({"scenario": ["top-1"], "url": ["/b"], "links_added": [3]}),  # Int64
        pl.DataFrame({"url": ["/c"], "scenario": ["top-1"], "pagerank_gain": [0.5]}),
        pl.DataFrame({"scenario": ["top-1"], "url": ["/d"], "links_added": [2]}),
    ]
    with open_db(tmp_path / "t.duckdb") as con:
        written = write_partition(con, "c1", {"whatif_pages": iter(frames)})
        rows = con.execute(
            "SELECT crawl_id, url, links_added, pagerank_gain, created_at IS NOT NULL "
            "FROM whatif_pages ORDER BY url"
        ).fetchall()
    assert written == {"whatif_pages": 4}
    assert rows == [
        ("c1", "/a", None, None, True),  # created_at: the column's default, never given
        ("c1", "/b", 3, None, True),
        ("c1", "/c", None, 0.5, True),
        ("c1", "/d", 2, None, True),
    ]
    bad = [frames[0], pl.DataFrame({"scenario": ["top-1"], "url": ["/x"], "links_added": ["x"]})]
    with open_db(tmp_path / "t.duckdb") as con:
        with pytest.raises((duckdb.Error, pa.ArrowInvalid)):
            write_partition(con, "c1", {"whatif_pages": iter(bad)})
        kept = con.execute("SELECT url FROM whatif_pages ORDER BY url").fetchall()
    assert kept == [("/a",), ("/b",), ("/c",), ("/d",)]  # the earlier partition stays whole


def test_rows_with_lists_and_bytes_are_written_at_the_tables_types(tmp_path):
    """Row mappings' list and bytes columns go through Arrow at the table's types (polars
    infers them value by value); a value Arrow refuses is left to polars' inference and the
    insert's cast, as before."""
    rows = [
        {"source_url": "/a", "digest": "d", "name_keys": ["x", "y"], "gate_sims": b"\x00\x01",
         "lexical_next_partials": [0.5, 1], "lexical_cut": 2},
        {"source_url": "/b", "digest": "e", "name_keys": [], "gate_hits": None},
        {"source_url": "/c", "digest": "f", "name_keys": [1, 2]},  # not strings: inferred
    ]  # fmt: skip
    with open_db(tmp_path / "t.duckdb") as con:
        assert write_partition(con, "c1", {"candidate_sources": rows}, shard=0) == {
            "candidate_sources": 3
        }
        got = con.execute(
            "SELECT source_url, name_keys, gate_sims, lexical_next_partials, lexical_cut, "
            "gate_hits FROM candidate_sources ORDER BY source_url"
        ).fetchall()
    assert got == [
        ("/a", ["x", "y"], b"\x00\x01", [0.5, 1.0], 2.0, None),
        ("/b", [], None, None, None, None),
        ("/c", ["1", "2"], None, None, None, None),
    ]
