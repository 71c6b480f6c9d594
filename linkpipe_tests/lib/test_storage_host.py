"""The database file attached to the process's DuckDB instance: each open attaches it, the
last close detaches it (checkpointed, its lock let go), and an instance of this process that
holds the file already is shared instead."""

import multiprocessing
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

from linkpipe.lib.retention import publish_copy
from linkpipe.lib.storage import (
    NO_DOWNLOADS,
    StorageError,
    host,
    keep_open,
    open_db,
    write_partition,
)

# another process writes a row into the file, waiting up to 5 s for its lock
WRITER = (
    "import sys, time, duckdb\n"
    "for _ in range(50):\n"
    "    try:\n"
    "        c = duckdb.connect(sys.argv[1]); break\n"
    "    except duckdb.IOException:\n"
    "        time.sleep(0.1)\n"
    "else:\n"
    "    sys.exit(3)\n"
    "c.execute('INSERT INTO t VALUES (2)'); c.close()\n"
)


def _rows(db):
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT x FROM t ORDER BY x").fetchall()]
    finally:
        con.close()


def test_a_closed_open_lets_the_file_go_checkpointed(tmp_path):
    db = tmp_path / "a.duckdb"
    with open_db(db) as con:
        assert host.attached(db) and host.owns(con)
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("INSERT INTO t VALUES (1)")
        assert con.execute("SELECT current_database()").fetchone()[0].startswith("lp_")
    assert not host.attached(db)
    assert not (tmp_path / "a.duckdb.wal").exists()  # detached = checkpointed
    done = subprocess.run([sys.executable, "-c", WRITER, str(db)], timeout=60)
    assert done.returncode == 0
    assert _rows(db) == [1, 2]


def test_another_process_waits_while_an_open_holds_the_file(tmp_path):
    db = tmp_path / "b.duckdb"
    with open_db(db) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with open_db(db) as con:
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db)])
        time.sleep(1.5)
        assert writer.poll() is None  # still waiting for the lock this process holds
        con.execute("INSERT INTO t VALUES (1)")
    assert writer.wait(timeout=60) == 0
    assert _rows(db) == [1, 2]


def test_nested_and_threaded_opens_share_one_attachment(tmp_path):
    db = tmp_path / "c.duckdb"
    seen: list[int] = []

    def other_thread() -> None:
        with open_db(db, read_only=True) as con:  # read-only inside a read-write attachment
            seen.append(con.execute("SELECT count(*) FROM t").fetchone()[0])

    with open_db(db) as outer:
        outer.execute("CREATE TABLE t (x INTEGER)")
        outer.execute("INSERT INTO t VALUES (1), (2)")
        with open_db(db) as inner:
            assert inner.execute("SELECT sum(x) FROM t").fetchone()[0] == 3
        assert host.attached(db)  # the outer open still holds it
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join(timeout=30)
    assert seen == [2]
    assert not host.attached(db)


def test_a_file_another_instance_of_this_process_holds_is_shared(tmp_path):
    db = tmp_path / "d.duckdb"
    plain = duckdb.connect(str(db), config=NO_DOWNLOADS)  # the product's configuration
    try:
        plain.execute("CREATE TABLE t (x INTEGER)")
        with open_db(db) as con:
            assert not host.owns(con)  # DuckDB refuses a second attachment: its instance
            con.execute("INSERT INTO t VALUES (7)")
        assert plain.execute("SELECT x FROM t").fetchall() == [(7,)]
    finally:
        plain.close()
    assert not host.attached(db)


def test_a_file_held_read_only_is_not_opened_for_writing_and_errors_are_clear(tmp_path):
    db = tmp_path / "e.duckdb"
    with open_db(db) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with open_db(db, read_only=True):
        try:
            with open_db(db, wait_s=0):
                raise AssertionError("opened for writing")
        except StorageError as exc:
            assert "read-only in this process" in str(exc)
    assert not host.attached(db)
    missing = tmp_path / "missing.duckdb"
    try:
        with open_db(missing, read_only=True):
            raise AssertionError("opened")
    except StorageError as exc:
        assert str(exc) == f"database not found: {missing}"


def test_spills_go_beside_the_first_file(tmp_path):
    db = tmp_path / "f.duckdb"
    with open_db(db) as con:
        folder = con.execute("SELECT current_setting('temp_directory')").fetchone()[0]
    # the host keeps the folder of the first file it attached in this process
    assert folder.endswith(".duckdb.tmp")


def test_a_copy_a_failed_update_left_attached_is_published_again(tmp_path):
    db = tmp_path / "g.duckdb"
    with open_db(db) as con:
        write_partition(con, "c1", {"crawl_links": [{"source_url": "a", "target_url": "b"}]})
    copy = publish_copy(db)
    with open_db(db) as con:  # an update that failed and could not let its copy go
        con.execute(f"ATTACH '{copy}' AS published")
        write_partition(con, "c2", {"crawl_links": [{"source_url": "a", "target_url": "c"}]})
    assert publish_copy(db) == copy
    readers = duckdb.connect(str(copy), read_only=True)
    try:
        rows = readers.execute("SELECT crawl_id, target_url FROM crawl_links ORDER BY 1")
        assert rows.fetchall() == [("c1", "b"), ("c2", "c")]
    finally:
        readers.close()
    assert not host.attached(db)


def _write_in_child(db: str, parents: str) -> None:
    # the file the parent holds is not the child's: its instance is left to the parent
    assert not host.attached(Path(parents))
    with open_db(db) as con:  # an instance of the child's own
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("INSERT INTO t VALUES (5)")


def test_a_forked_child_opens_files_with_an_instance_of_its_own(tmp_path):
    db = tmp_path / "h.duckdb"
    with open_db(db) as con:  # the parent's instance made and holding a file at the fork
        con.execute("SELECT 1")
        child = multiprocessing.get_context("fork").Process(
            target=_write_in_child, args=(str(tmp_path / "other.duckdb"), str(db))
        )
        child.start()
        child.join(timeout=60)
        assert child.exitcode == 0
        assert host.attached(db)
    assert _rows(tmp_path / "other.duckdb") == [5]


def test_a_kept_file_stays_attached_between_opens_and_goes_checkpointed_after(tmp_path):
    db = tmp_path / "k.duckdb"
    with keep_open(db):
        with open_db(db) as con:
            con.execute("CREATE TABLE t (x INTEGER)")
            con.execute("INSERT INTO t VALUES (1)")
        assert host.attached(db)  # the last connection closed, the file still attached
        with open_db(db, read_only=True) as con:  # a read-only open takes the same attachment
            assert con.execute("SELECT x FROM t").fetchall() == [(1,)]
        # another process cannot write for the whole block (it gets no lock for 5 s, or no
        # lock of the write-ahead log the block's writes hold)
        writer = subprocess.run([sys.executable, "-c", WRITER, str(db)], timeout=60)
        assert writer.returncode != 0 and host.attached(db)
    assert not host.attached(db)
    assert not (tmp_path / "k.duckdb.wal").exists()  # detached = checkpointed
    writer = subprocess.run([sys.executable, "-c", WRITER, str(db)], timeout=60)
    assert writer.returncode == 0  # then it writes
    assert _rows(db) == [1, 2]


def test_a_file_kept_read_only_is_attached_again_for_writing(tmp_path):
    db = tmp_path / "r.duckdb"
    with open_db(db) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with keep_open(db), keep_open(db):  # blocks nest: the outer one detaches
        with open_db(db, read_only=True) as con:
            assert con.execute("SELECT count(*) FROM t").fetchone() == (0,)
        with open_db(db) as con:  # no connection uses the read-only attachment: replaced
            con.execute("INSERT INTO t VALUES (5)")
        with open_db(db, read_only=True) as reader, open_db(db) as con:
            con.execute("INSERT INTO t VALUES (6)")  # the read-write attachment serves both
            assert reader.execute("SELECT count(*) FROM t").fetchone() == (2,)
    assert not host.attached(db) and _rows(db) == [5, 6]


def test_a_connection_that_outlives_the_block_lets_the_file_go_when_it_closes(tmp_path):
    db = tmp_path / "o.duckdb"
    with open_db(db) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with open_db(db) as outer:
        with keep_open(db), open_db(db) as con:
            con.execute("INSERT INTO t VALUES (1)")
        assert host.attached(db)  # the outer connection is still open
        outer.execute("INSERT INTO t VALUES (2)")
    assert not host.attached(db)  # its close detaches the file: no keeper left behind
    with keep_open(db):
        with open_db(db) as con:
            con.execute("INSERT INTO t VALUES (3)")
        inner = host.attach(db, False, {})
    assert host.attached(db)  # a connection opened in the block and still open
    assert inner is not None
    host.release(inner)
    assert not host.attached(db) and _rows(db) == [1, 2, 3]
