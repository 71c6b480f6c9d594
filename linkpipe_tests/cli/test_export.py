"""`linkpipe export` on a database the demo graph filled (hashing embedder): CSV with a BOM,
XLSX sheets (the crawl diff's included), Parquet, checked view names, and `review import`
reading the files back."""

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from openpyxl import load_workbook

from linkpipe.cli.main import main
from linkpipe_tests.report.earlier_crawl import add_earlier_crawl

URL_COLUMNS = {
    "v_opportunities": ["source_url", "target_url"],
    "v_orphan_pages": ["url"],
    "v_excluded_pages": ["url"],
    "v_page_metrics": ["url"],
    "v_suggestion_changes": ["source_url", "target_url"],
    "v_link_changes": ["source_url", "target_url"],
}
XLSX_SHEETS = [
    "v_opportunities",
    "v_orphan_pages",
    "v_excluded_pages",
    "v_page_metrics",
    "v_suggestion_changes",
    "v_link_changes",
]


@pytest.fixture(scope="module")
def graph_db(tmp_path_factory, demo_site, fake_model: str) -> Path:
    db = tmp_path_factory.mktemp("export") / "linkpipe.duckdb"
    out = subprocess.run(
        [sys.executable, "-m", "linkpipe.cli.main", "run", demo_site.base_url + "/",
         "--db", str(db), "--crawl-id", "c1", "--model", fake_model],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return db


def query(db: Path, sql: str) -> tuple[list[str], list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall()
    finally:
        con.close()


def export(capsys, db: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    status = main(["export", "--db", str(db), "--out", str(out), *extra])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_csv_is_v_opportunities_with_a_bom(capsys, graph_db: Path, tmp_path: Path):
    columns, rows = query(graph_db, "SELECT * FROM v_opportunities")
    out = tmp_path / "suggestions.csv"
    status, stdout, _ = export(capsys, graph_db, out)
    assert status == 0 and stdout.strip() == f"wrote v_opportunities ({len(rows)} rows) to {out}"
    data = out.read_bytes()
    assert data.startswith(
        b"\xef\xbb\xbfcrawl_id,source_url,target_url,source_title,target_title,rank,score,"
    )
    back = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    assert back[0] == columns and len(back) == len(rows) + 1 > 10
    i = columns.index
    got = [(r[i("source_url")], r[i("target_url")], int(r[i("rank")])) for r in back[1:]]
    assert got == [(r[i("source_url")], r[i("target_url")], r[i("rank")]) for r in rows]
    assert [float(r[i("score")]) for r in back[1:]] == [r[i("score")] for r in rows]


def test_xlsx_has_a_sheet_per_view_frozen_sized_and_linked(capsys, graph_db: Path, tmp_path: Path):
    out = tmp_path / "suggestions.xlsx"
    status, stdout, _ = export(capsys, graph_db, out)
    assert status == 0 and stdout.startswith("wrote v_opportunities (")
    book = load_workbook(out)
    assert book.sheetnames == XLSX_SHEETS
    for view in XLSX_SHEETS:
        columns, rows = query(graph_db, f"SELECT * FROM {view}")
        sheet = book[view]
        assert sheet.freeze_panes == "A2"
        assert [c.value for c in sheet[1]] == columns and sheet.max_row == len(rows) + 1
        for index, _ in enumerate(columns, start=1):
            letter = sheet.cell(1, index).column_letter
            assert 8 <= sheet.column_dimensions[letter].width <= 60
        if view in ("v_suggestion_changes", "v_link_changes"):
            assert rows == []  # one crawl: nothing to compare, the header only
            continue
        for name in URL_COLUMNS.get(view, []):
            col = columns.index(name) + 1
            cells = [sheet.cell(r, col) for r in range(2, sheet.max_row + 1)]
            assert cells and all(c.hyperlink.target == c.value for c in cells)
            assert [c.value for c in cells] == [row[col - 1] for row in rows]
    reasons = book["v_excluded_pages"]["B"]  # other columns stay text
    assert reasons[0].value == "reason" and all(c.hyperlink is None for c in reasons)
    assert len(reasons) > 1


def test_xlsx_has_the_crawl_diff_sheets(capsys, graph_db: Path, tmp_path: Path):
    db = tmp_path / "two-crawls.duckdb"
    shutil.copy(graph_db, db)
    earlier = add_earlier_crawl(db, "c1", "c0")
    out = tmp_path / "suggestions.xlsx"
    status, stdout, _ = export(capsys, db, out)
    assert status == 0 and "v_suggestion_changes (" in stdout and "v_link_changes (1 row)" in stdout
    book = load_workbook(out)
    assert book.sheetnames == XLSX_SHEETS
    columns, rows = query(db, "SELECT * FROM v_suggestion_changes")
    sheet = book["v_suggestion_changes"]
    assert columns[:6] == [
        "old_crawl_id",
        "new_crawl_id",
        "source_url",
        "target_url",
        "status",
        "why",
    ]
    assert [c.value for c in sheet[1]] == columns and sheet.max_row == len(rows) + 1
    got = [tuple(c.value for c in row) for row in sheet.iter_rows(min_row=2)]
    assert got == rows
    at = columns.index
    changed = {(r[at("status")], (r[at("source_url")], r[at("target_url")])) for r in got}
    assert {("implemented", earlier.implemented), ("new", earlier.new),
            ("disappeared", earlier.disappeared)} <= changed  # fmt: skip
    assert {r[at("status")] for r in got} == {"implemented", "new", "disappeared", "still_open"}
    assert all((r[at("old_crawl_id")], r[at("new_crawl_id")]) == ("c0", "c1") for r in got)
    links = book["v_link_changes"]
    columns, rows = query(db, "SELECT * FROM v_link_changes")
    assert [c.value for c in links[1]] == columns
    assert [tuple(c.value for c in row) for row in links.iter_rows(min_row=2)] == rows
    assert [r[2:6] for r in rows] == [(*earlier.implemented, "content", "added")]
    source = links.cell(2, columns.index("source_url") + 1)
    assert source.hyperlink.target == source.value == earlier.implemented[0]


def test_parquet_holds_the_views_rows(capsys, graph_db: Path, tmp_path: Path):
    out = tmp_path / "orphans.parquet"
    status, stdout, _ = export(capsys, graph_db, out, "--view", "v_orphan_pages")
    assert status == 0 and "wrote v_orphan_pages (" in stdout
    expected = query(graph_db, "SELECT * FROM v_orphan_pages")
    assert query(graph_db, f"SELECT * FROM read_parquet('{out}')") == expected
    assert expected[1]


@pytest.mark.parametrize(
    ("out_name", "args", "message"),
    [
        ("x.csv", ["--view", "v_opportunities; DROP TABLE crawls"], "no table or view named v_"),
        ("x.csv", ["--view", "read_text('/etc/passwd')"], "no table or view named read_text"),
        ("x.csv", ["--view", "v_orphan_pages", "v_excluded_pages"], "a csv file holds one view"),
        ("x.txt", [], "cannot tell the format of 'x.txt'"),
        (None, ["--format", "csv"], "is the database itself"),
    ],
)
def test_bad_requests_are_one_line_and_write_nothing(
    capsys, graph_db: Path, tmp_path: Path, out_name: str | None, args: list[str], message: str
):
    out = tmp_path / out_name if out_name else graph_db
    status, stdout, err = export(capsys, graph_db, out, *args)
    assert status == 1 and stdout == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert list(tmp_path.iterdir()) == []
    assert query(graph_db, "SELECT count(*) FROM crawls")[1] == [(1,)]


def test_review_import_reads_the_exported_csv_and_xlsx_back(capsys, graph_db: Path, tmp_path: Path):
    db = tmp_path / "copy.duckdb"
    shutil.copy(graph_db, db)
    csv_out, xlsx_out = tmp_path / "s.csv", tmp_path / "s.xlsx"
    assert export(capsys, db, csv_out)[0] == 0 and export(capsys, db, xlsx_out)[0] == 0
    rows = list(csv.reader(io.StringIO(csv_out.read_text(encoding="utf-8-sig"), newline="")))
    header = rows[0]
    for row, decision in zip(rows[1:3], ["rejected", "accepted"], strict=True):
        row[header.index("decision")] = decision
        row[header.index("decided_by")] = "ed"
        row[header.index("decision_note")] = "from the csv"
    with csv_out.open("w", encoding="utf-8-sig", newline="") as handle:  # as Excel saves it
        csv.writer(handle).writerows(rows)
    assert main(["review", "import", str(csv_out), "--db", str(db)]) == 0
    assert "recorded 2 decisions: 1 accepted, 1 rejected" in capsys.readouterr().out

    book = load_workbook(xlsx_out)
    sheet = book["v_opportunities"]
    names = [c.value for c in sheet[1]]
    sheet.cell(4, names.index("decision") + 1, "deferred")
    sheet.cell(4, names.index("decision_note") + 1, "from the xlsx")
    book.save(xlsx_out)
    assert main(["review", "import", str(xlsx_out), "--db", str(db)]) == 0
    assert "recorded 1 decisions: 0 accepted, 0 rejected, 1 deferred" in capsys.readouterr().out

    i = header.index
    expected = sorted(
        [(rows[1][i("source_url")], rows[1][i("target_url")], "rejected", "ed", "from the csv"),
         (rows[2][i("source_url")], rows[2][i("target_url")], "accepted", "ed", "from the csv"),
         (rows[3][i("source_url")], rows[3][i("target_url")], "deferred", None, "from the xlsx")]
    )  # fmt: skip
    got = query(db, "SELECT source_url, target_url, decision, decided_by, note FROM link_decisions")
    assert sorted(got[1]) == expected
    left = query(db, "SELECT source_url, target_url FROM v_opportunities")[1]
    assert (rows[1][i("source_url")], rows[1][i("target_url")]) not in left  # rejected: gone


def test_export_reads_the_published_copy_while_a_run_holds_the_database(
    capsys, graph_db: Path, tmp_path: Path
):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('holding', flush=True); time.sleep(60)", str(graph_db)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        status, stdout, err = export(capsys, graph_db, tmp_path / "o.csv")
    finally:
        holder.terminate()
        holder.wait(timeout=30)
    assert status == 0 and stdout.startswith("wrote v_opportunities (")
    assert err.strip() == (
        f"linkpipe: {graph_db} is held by a run: exporting its last published copy, "
        "linkpipe.published.duckdb"
    )
    assert (tmp_path / "o.csv").read_bytes().startswith(b"\xef\xbb\xbfcrawl_id,")
