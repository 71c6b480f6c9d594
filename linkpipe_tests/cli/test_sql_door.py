"""`linkpipe sql` is a read-only door: no file but the database read or written, nothing
attached, installed or loaded, no setting changed; SELECTs work, also while a run holds the
database (the published copy, or a bounded wait for the run)."""

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from linkpipe.cli.main import main
from linkpipe.lib.retention import publish_copy
from linkpipe.lib.storage import StorageError, connect_query_only, open_db, write_partition

REFUSED = "statements cannot run here: `linkpipe sql` is read-only"
NO_FILES = "file system operations are disabled by configuration"
LOCKED = "the configuration has been locked"

HOLDER = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("INSERT INTO crawl_links (crawl_id, source_url, target_url) VALUES ('new', 'a', 'b')")
print("holding", flush=True)
time.sleep(float(sys.argv[2]))
con.close()
"""


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "kept.duckdb"
    with open_db(path) as con:
        con.execute(
            "INSERT INTO crawls (crawl_id, start_url, source) "
            "VALUES ('old', 'http://x.test/', 'crawler')"
        )
        rows = [{"source_url": "http://x.test/", "target_url": "http://x.test/a/"}]
        write_partition(con, "old", {"crawl_links": rows})
    (tmp_path / "data.csv").write_text("a\n1\n", encoding="utf-8")
    return path


@contextmanager
def write_lock_held(db: Path, seconds: float = 60.0) -> Iterator[subprocess.Popen[str]]:
    """Another process holds ``db`` open for writing (as a run does) for ``seconds``."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        yield holder
    finally:
        holder.terminate()
        holder.wait(timeout=30)


def sql(capsys: pytest.CaptureFixture[str], db: Path, query: str, *extra: str) -> tuple:
    status = main(["sql", "--db", str(db), "--format", "csv", *extra, query])
    out = capsys.readouterr()
    return status, out.out, out.err


def rows_of(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT crawl_id, source_url FROM crawl_links ORDER BY ALL").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("COPY crawl_links TO '{tmp}/out.csv'", "COPY " + REFUSED),
        ("COPY (SELECT 1) TO '{tmp}/out.parquet' (FORMAT parquet)", "COPY " + REFUSED),
        ("EXPORT DATABASE '{tmp}/exported'", "EXPORT " + REFUSED),
        ("IMPORT DATABASE '{tmp}/exported'", NO_FILES),
        ("SELECT * FROM read_csv_auto('/etc/passwd')", 'Cannot access file "/etc/passwd"'),
        ("SELECT * FROM read_text('/etc/passwd')", 'Cannot access file "/etc/passwd"'),
        ("SELECT * FROM read_blob('/etc/passwd')", 'Cannot access file "/etc/passwd"'),
        ("SELECT * FROM glob('/etc/*')", 'Cannot access file "/etc/*"'),
        ("SELECT * FROM '{tmp}/data.csv'", NO_FILES),
        ("ATTACH '{tmp}/other.duckdb' AS other", "ATTACH " + REFUSED),
        ("ATTACH '{db}' AS again (READ_WRITE)", "ATTACH " + REFUSED),
        ("ATTACH '{db}' AS again (READ_ONLY)", "ATTACH " + REFUSED),
        ("ATTACH ':memory:' AS scratch (READ_WRITE)", "ATTACH " + REFUSED),
        ("DETACH kept", "DETACH " + REFUSED),
        ("USE memory", "SET " + REFUSED),
        ("INSTALL httpfs", "LOAD " + REFUSED),
        ("LOAD httpfs", "LOAD " + REFUSED),
        ("LOAD '{tmp}/evil.duckdb_extension'", "LOAD " + REFUSED),
        ("UPDATE EXTENSIONS", "UPDATE " + REFUSED),
        ("SET enable_external_access = true", "SET " + REFUSED),
        ("SET lock_configuration = false", "SET " + REFUSED),
        ("RESET lock_configuration", "SET " + REFUSED),
        ("SET memory_limit = '1GB'", "SET " + REFUSED),
        ("PRAGMA threads = 1", "SET " + REFUSED),
        ("PRAGMA enable_profiling", LOCKED),
        ("PRAGMA force_checkpoint", LOCKED),
        ("SET VARIABLE x = 1", "SET " + REFUSED),
        ("CREATE TABLE t (a INTEGER)", "CREATE " + REFUSED),
        ("CREATE TEMP TABLE t (a INTEGER)", "CREATE " + REFUSED),
        ("CREATE SECRET (TYPE s3)", "CREATE " + REFUSED),
        ("INSERT INTO crawl_links (crawl_id, source_url) VALUES ('x', 'y')", "INSERT " + REFUSED),
        ("DELETE FROM crawl_links", "DELETE " + REFUSED),
        ("UPDATE crawl_links SET anchor_text = 'x'", "UPDATE " + REFUSED),
        ("DROP VIEW v_opportunities", "DROP " + REFUSED),
        ("CHECKPOINT", "CALL " + REFUSED),
        ("BEGIN TRANSACTION", "TRANSACTION " + REFUSED),
        ("SELECT 1; DELETE FROM crawl_links", "DELETE " + REFUSED),
    ],
)
def test_the_door_refuses_everything_but_queries(capsys, db: Path, query: str, expected: str):
    before = sorted(p.name for p in db.parent.iterdir())
    status, out, err = sql(capsys, db, query.format(tmp=db.parent, db=db))
    assert status == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("linkpipe: error: query failed: ")
    assert expected in lines[0]
    assert sorted(p.name for p in db.parent.iterdir()) == before  # no file written
    assert rows_of(db) == [("old", "http://x.test/")]


def test_the_attach_detach_attack_of_the_issue_deletes_nothing(capsys, db: Path):
    attack = (
        f"ATTACH ':memory:' AS m (READ_WRITE); USE m; DETACH kept; "
        f"ATTACH '{db}' AS t2 (READ_WRITE); DELETE FROM t2.crawl_links"
    )
    status, _, err = sql(capsys, db, attack)
    assert status == 1 and "ATTACH " + REFUSED in err
    assert rows_of(db) == [("old", "http://x.test/")]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("COPY crawl_links TO '{tmp}/out.csv'", NO_FILES),
        ("EXPORT DATABASE '{tmp}/exported'", NO_FILES),
        ("SELECT * FROM read_csv_auto('/etc/passwd')", NO_FILES),
        ("SELECT * FROM read_text('/etc/passwd')", NO_FILES),
        ("SELECT * FROM glob('/etc/*')", NO_FILES),
        ("ATTACH '{tmp}/other.duckdb' AS other", NO_FILES),
        ("INSTALL httpfs", NO_FILES),
        ("LOAD httpfs", "Loading external extensions is disabled through configuration"),
        ("SET enable_external_access = true", LOCKED),
        ("SET lock_configuration = false", LOCKED),
        ("SET autoinstall_known_extensions = true", LOCKED),
        ("SET allowed_directories = ['/etc']", LOCKED),
        ("PRAGMA threads = 1", LOCKED),
        ("CREATE TABLE t (a INTEGER)", "read-only mode"),
        ("INSERT INTO crawl_links (crawl_id, source_url) VALUES ('x', 'y')", "read-only mode"),
        ("DELETE FROM crawl_links", "read-only mode"),
    ],
)
def test_the_connection_itself_refuses_files_extensions_and_settings(
    db: Path, query: str, expected: str
):
    """Beneath the statement check, DuckDB's own settings hold (a second wall)."""
    con = connect_query_only(db)
    try:
        with pytest.raises(duckdb.Error) as caught:
            con.execute(query.format(tmp=db.parent))
    finally:
        con.close()
    assert expected in str(caught.value)
    assert not (db.parent / "out.csv").exists() and not (db.parent / "exported").exists()


def test_queries_over_tables_and_views_keep_working(capsys, db: Path):
    status, out, err = sql(capsys, db, "SELECT crawl_id, source_url, target_url FROM crawl_links")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "crawl_id,source_url,target_url",
        "old,http://x.test/,http://x.test/a/",
    ]
    status, out, _ = sql(capsys, db, "SELECT count(*) AS n FROM v_opportunities")
    assert status == 0 and out.splitlines() == ["n", "0"]
    status, out, _ = sql(capsys, db, "DESCRIBE v_orphan_pages")
    assert status == 0 and out.splitlines()[1].startswith("url,VARCHAR")
    status, out, _ = sql(capsys, db, "PRAGMA table_info('crawls')")
    assert status == 0 and out.splitlines()[1].startswith("0,crawl_id,VARCHAR")
    status, out, _ = sql(capsys, db, "SELECT 1 AS a; SELECT 2 AS b")
    assert status == 0 and out.splitlines() == ["b", "2"]
    status, out, _ = sql(capsys, db, "EXPLAIN SELECT * FROM crawls")
    assert status == 0 and "explain_key" in out.splitlines()[0]


def test_errors_keep_duckdbs_hint_on_one_line(capsys, db: Path):
    status, _, err = sql(capsys, db, "SELECT * FROM v_oportunities")
    assert status == 1
    assert err.strip().splitlines() == [
        "linkpipe: error: query failed: Catalog Error: Table with name v_oportunities does not "
        'exist! Did you mean "v_opportunities"?'
    ]


def test_a_missing_database_is_one_line_and_not_created(capsys, tmp_path: Path):
    status, _, err = sql(capsys, tmp_path / "nope.duckdb", "SELECT 1")
    assert (
        status == 1
        and err.strip() == f"linkpipe: error: database not found: {tmp_path / 'nope.duckdb'}"
    )
    assert list(tmp_path.iterdir()) == []


def test_while_a_run_writes_the_published_copy_is_read(capsys, db: Path):
    publish_copy(db)
    with write_lock_held(db):
        status, out, err = sql(capsys, db, "SELECT crawl_id FROM crawl_links ORDER BY ALL")
        refused = sql(capsys, db, "ATTACH ':memory:' AS m (READ_WRITE)")
    assert status == 0 and out.splitlines() == ["crawl_id", "old"]  # not the run's new row
    assert err.strip() == (
        f"linkpipe: {db} is held by a run: reading its last published copy, kept.published.duckdb"
    )
    assert refused[0] == 1 and "ATTACH " + REFUSED in refused[2]  # the copy is guarded too


def test_while_the_run_updates_its_published_copy_in_place_it_waits_then_reads_it(capsys, db: Path):
    """The run writes its update into the copy itself (a few seconds, under DuckDB's lock): a
    reader waits for it instead of failing."""
    copy = publish_copy(db)
    with write_lock_held(db), write_lock_held(copy, seconds=1.5):
        started = time.monotonic()
        status, out, err = sql(capsys, db, "SELECT crawl_id FROM crawl_links ORDER BY ALL")
        waited = time.monotonic() - started
    # the copy as the update left it (the holder's row), read once its lock was let go
    assert status == 0 and out.splitlines() == ["crawl_id", "new", "old"] and waited < 30
    assert err.strip().splitlines() == [
        f"linkpipe: waiting for the run that holds {db} to finish (up to 60 s)...",
        f"linkpipe: {db} is held by a run: reading its last published copy, kept.published.duckdb",
    ]


def test_without_a_published_copy_it_waits_then_gives_up_in_one_line(capsys, db: Path):
    with write_lock_held(db) as holder:
        started = time.monotonic()
        status, out, err = sql(capsys, db, "SELECT 1", "--wait", "1")
        waited = time.monotonic() - started
    assert status == 1 and out == "" and 1.0 <= waited < 10
    assert err.strip().splitlines() == [
        f"linkpipe: waiting for the run that holds {db} to finish (up to 1 s)...",
        f"linkpipe: error: {db} is held by another process (PID {holder.pid}) and has no "
        "published copy yet; waited 1 s: try again when the run finishes, or give a longer --wait",
    ]


def test_without_a_published_copy_it_reads_once_the_run_is_done(capsys, db: Path):
    with write_lock_held(db, seconds=1.5):
        status, out, err = sql(capsys, db, "SELECT crawl_id FROM crawl_links ORDER BY ALL")
    assert status == 0 and out.splitlines() == ["crawl_id", "new", "old"]  # the run's row too
    assert err.strip() == f"linkpipe: waiting for the run that holds {db} to finish (up to 60 s)..."


def test_connect_query_only_reports_a_lock_as_a_storage_error(db: Path):
    with write_lock_held(db), pytest.raises(StorageError, match="Could not set lock"):
        connect_query_only(db)


@pytest.mark.parametrize(
    ("value", "message"),
    [("nan", "must be 0 or more seconds, not nan"), ("-1", "must be 0 or more seconds, not -1"),
     ("inf", "must be 0 or more seconds, not inf"), ("soon", "not a number of seconds: 'soon'")],
)  # fmt: skip
def test_wait_takes_a_finite_number_of_seconds(capsys, db: Path, value: str, message: str):
    with pytest.raises(SystemExit) as exited:
        main(["sql", "--db", str(db), "--wait", value, "SELECT 1"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().endswith(f"argument --wait: {message}")
