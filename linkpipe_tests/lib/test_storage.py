"""Partition writes are one transaction: replace, never duplicate, never lose on failure."""

import pyarrow as pa
import pytest

from linkpipe.lib.storage import StorageError, connect, open_db, publish_copy, write_partition


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
