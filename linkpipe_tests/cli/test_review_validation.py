"""`review set` / `review import` refuse values that are not http(s) URLs (one line, nothing
recorded) and warn, one stderr line per pair, about pairs whose pages no crawl knows (recorded
all the same)."""

from pathlib import Path

import duckdb
import pytest

from linkpipe.cli.main import main
from linkpipe.lib.storage import open_db, write_partition

A, B, OLD = "http://s.test/a/", "http://s.test/b/", "http://s.test/old/"
NEW = "http://s.test/not-crawled/"


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    """Two crawls: c0 knew /a/ and /old/, c1 knows /a/ and /b/."""
    path = tmp_path / "review.duckdb"
    with open_db(path) as con:
        for crawl_id, urls in (("c0", [A, OLD]), ("c1", [A, B])):
            con.execute(
                "INSERT INTO crawls (crawl_id, start_url, source) VALUES (?, ?, 'crawler')",
                [crawl_id, "http://s.test/"],
            )
            pages = [{"url": url, "shard": 0, "status": 200} for url in urls]
            write_partition(con, crawl_id, {"crawl_pages": pages})
    return path


def decisions(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT source_url, target_url, decision, decided_by, note FROM link_decisions "
        "ORDER BY source_url, target_url"
    ).fetchall()
    con.close()
    return rows


def review(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["review", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        (
            "notaurl",
            B,
            "bad source URL 'notaurl': not a URL (expected http:// or https:// and a host)",
        ),
        (A, "ftp://x", "bad target URL 'ftp://x': scheme 'ftp' is not http or https"),
        (A, "http://", "bad target URL 'http://': no host"),
        ("/a/", B, "bad source URL '/a/': not a URL (expected http:// or https:// and a host)"),
    ],
)
def test_set_refuses_what_is_not_a_url(db, capsys, source, target, message):
    status, out, err = review(capsys, "set", source, target, "rejected", "--db", str(db))
    assert status == 1 and out == ""
    assert err == f"linkpipe: error: {message}; nothing recorded\n"
    assert decisions(db) == []


def test_set_with_a_bad_url_creates_no_database(tmp_path, capsys):
    db = tmp_path / "none.duckdb"
    status, _, err = review(capsys, "set", "notaurl", B, "accepted", "--db", str(db))
    assert status == 1 and err.startswith("linkpipe: error: bad source URL 'notaurl'")
    assert list(tmp_path.iterdir()) == []


def test_set_records_known_pairs_silently_and_warns_on_unknown_ones(db, capsys):
    status, out, err = review(capsys, "set", OLD, B, "accepted", "--db", str(db), "--by", "ana")
    assert (status, out, err) == (0, f"accepted: {OLD} -> {B}\n", "")  # any crawl counts
    status, out, err = review(capsys, "set", A, NEW, "rejected", "--db", str(db), "--note", "x")
    assert status == 0 and out == f"rejected: {A} -> {NEW}\n"
    assert err == f"warning: {A} -> {NEW}: target matches no page of any crawl (recorded anyway)\n"
    assert decisions(db) == [
        (A, NEW, "rejected", None, "x"),
        (OLD, B, "accepted", "ana", None),
    ]


def test_import_warns_once_per_unknown_pair_and_records_every_row(db, tmp_path, capsys):
    csv = tmp_path / "decisions.csv"
    csv.write_text(
        "source_url,target_url,decision,who\n"
        f"{A},{B},accepted,ana\n"
        f"{A},{NEW},rejected,ana\n"
        f"http://elsewhere.test/x,{NEW},deferred,ben\n",
        encoding="utf-8",
    )
    status, out, err = review(capsys, "import", str(csv), "--db", str(db))
    assert status == 0
    assert out == "recorded 3 decisions: 1 accepted, 1 rejected, 1 deferred\n"
    assert err.splitlines() == [
        f"warning: {A} -> {NEW}: target matches no page of any crawl (recorded anyway)",
        f"warning: http://elsewhere.test/x -> {NEW}: source and target match no page of any "
        "crawl (recorded anyway)",
    ]
    assert decisions(db) == [
        ("http://elsewhere.test/x", NEW, "deferred", "ben", None),
        (A, B, "accepted", "ana", None),
        (A, NEW, "rejected", "ana", None),
    ]


def test_import_refuses_a_file_with_a_value_that_is_not_a_url(db, tmp_path, capsys):
    csv = tmp_path / "decisions.csv"
    csv.write_text(
        f"source_url,target_url,decision\n{A},{B},accepted\n{A},http://,rejected\n",
        encoding="utf-8",
    )
    status, out, err = review(capsys, "import", str(csv), "--db", str(db))
    assert status == 1 and out == ""
    assert err == (
        'linkpipe: error: decisions.csv line 3, column "target_url": expected an absolute URL, '
        "got 'http://' (no host)\n"
    )
    assert decisions(db) == []  # all or nothing: the good first row is not recorded either
