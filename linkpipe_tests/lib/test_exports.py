"""Export files written from a real DuckDB file: CSV with a BOM, Parquet, XLSX sheets; view
names checked against the catalog; the reader's fallback while a run holds the database."""

import csv
import datetime as dt
import io
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from openpyxl import Workbook, load_workbook

from linkpipe.lib import exports
from linkpipe.lib.exports import ExportError
from linkpipe.lib.storage import connect, open_db
from linkpipe.lib.value.decisions import read_decisions_csv


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    path = tmp_path / "x.duckdb"
    with open_db(path) as con:
        con.execute(
            """CREATE TABLE odd AS SELECT * FROM (VALUES
            ('http://x.test/a', '=HYPERLINK("http://evil.test")', 1.5, TIMESTAMPTZ '2026-01-02 03:04:05+01',
             'bell' || chr(7) || ' and' || chr(10) || 'line' || chr(8232) || 'sep', '\\x00\\xFF'::BLOB),
            ('not a url', NULL, 'nan'::DOUBLE, NULL, 'plain', NULL)
            ) AS t(page_url, formula, score, seen_at, note, raw)"""
        )
        con.execute("CREATE VIEW v_odd AS SELECT * FROM odd ORDER BY page_url")
    return path


def reader(db: Path) -> duckdb.DuckDBPyConnection:
    return connect(db, read_only=True)


def test_format_from_the_extension_or_given():
    assert exports.export_format(Path("a.CSV"), None) == "csv"
    assert exports.export_format(Path("a.xlsx"), None) == "xlsx"
    assert exports.export_format(Path("a.pq"), None) == "parquet"
    assert exports.export_format(Path("a.txt"), "csv") == "csv"
    with pytest.raises(ExportError, match="cannot tell the format of 'a.txt'"):
        exports.export_format(Path("a.txt"), None)


def test_view_names_are_checked_against_the_catalog(db: Path):
    con = reader(db)
    try:
        assert exports.checked_views(con, ["V_ODD", "v_odd", "odd"]) == ["v_odd", "odd"]
        for bad in ["v_odd; DROP TABLE odd", "(SELECT 1)", "read_text('/etc/passwd')"]:
            with pytest.raises(ExportError, match="no table or view named"):
                exports.checked_views(con, [bad])
        assert exports.default_views(con, "csv") == ["v_opportunities"]
        assert exports.default_views(con, "xlsx") == [
            "v_opportunities", "v_orphan_pages", "v_excluded_pages", "v_page_metrics",
            "v_suggestion_changes", "v_link_changes",
        ]  # fmt: skip
    finally:
        con.close()


def test_csv_has_a_bom_and_reads_back_cell_for_cell_with_formulas_as_text(db: Path, tmp_path: Path):
    out = tmp_path / "odd.csv"
    con = reader(db)
    try:
        assert exports.write_export(con, ["v_odd"], out, "csv") == {"v_odd": 2}
    finally:
        con.close()
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfpage_url,formula,score,seen_at,note,raw\r\n")
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    # a formula from a crawled page is text for a spreadsheet, never run
    assert rows[1][0] == "http://x.test/a" and rows[1][1] == '\'=HYPERLINK("http://evil.test")'
    assert rows[1][4] == "bell\x07 and\nline\u2028sep" and rows[1][5] == "00ff"
    assert rows[2] == ["not a url", "", "nan", "", "plain", ""]
    assert not list(tmp_path.glob(".*partial"))


def test_parquet_is_written_by_duckdb(db: Path, tmp_path: Path):
    out = tmp_path / "odd.parquet"
    con = reader(db)
    try:
        assert exports.write_export(con, ["odd"], out, "parquet") == {"odd": 2}
        back = con.execute("SELECT page_url, score FROM read_parquet(?) ORDER BY 1", [str(out)])
        rows = back.fetchall()
    finally:
        con.close()
    assert rows[0][0] == "http://x.test/a" and rows[1][0] == "not a url" and rows[0][1] == 1.5


def test_xlsx_sheets_keep_text_as_text_and_urls_as_links(db: Path, tmp_path: Path):
    out = tmp_path / "odd.xlsx"
    con = reader(db)
    try:
        assert exports.write_export(con, ["v_odd", "odd"], out, "xlsx") == {"v_odd": 2, "odd": 2}
    finally:
        con.close()
    book = load_workbook(out)
    assert book.sheetnames == ["v_odd", "odd"]
    sheet = book["v_odd"]
    assert sheet.freeze_panes == "A2" and sheet.auto_filter.ref == "A1:F3"
    assert [c.value for c in sheet[1]] == ["page_url", "formula", "score", "seen_at", "note", "raw"]
    assert all(c.font.b for c in sheet[1])
    assert sheet["A2"].hyperlink.target == "http://x.test/a" and sheet["A3"].hyperlink is None
    assert sheet["B2"].data_type == "s" and sheet["B2"].value == '=HYPERLINK("http://evil.test")'
    assert sheet["C2"].value == 1.5 and sheet["C3"].value == "nan"
    assert sheet["D2"].value == dt.datetime(2026, 1, 2, 2, 4, 5)  # UTC, no zone
    assert sheet["E2"].value == "bell and\nline\u2028sep"  # control characters dropped
    assert sheet["F2"].value == "00ff"
    assert 8 <= sheet.column_dimensions["A"].width <= 60


def test_xlsx_stops_links_and_rows_at_excels_limits(tmp_path: Path, monkeypatch):
    db = tmp_path / "many.duckdb"
    with open_db(db) as con:
        con.execute("CREATE TABLE pages AS SELECT 'http://x.test/' || i AS url FROM range(10) t(i)")
    monkeypatch.setattr(exports, "XLSX_MAX_LINKS", 3)
    monkeypatch.setattr(exports, "XLSX_MAX_ROWS", 7)
    monkeypatch.setattr(exports, "BATCH", 4)
    con = reader(db)
    try:
        assert exports.write_export(con, ["pages"], tmp_path / "p.xlsx", "xlsx") == {"pages": 7}
    finally:
        con.close()
    sheet = load_workbook(tmp_path / "p.xlsx")["pages"]
    assert sheet.max_row == 8
    assert [bool(sheet.cell(r, 1).hyperlink) for r in range(2, 9)] == [True] * 3 + [False] * 4


def test_a_failed_export_leaves_no_file(db: Path, tmp_path: Path):
    out = tmp_path / "x.csv"
    out.write_text("kept", encoding="utf-8")
    con = reader(db)
    try:
        with pytest.raises(duckdb.CatalogException):
            exports.write_export(con, ["no_such_view"], out, "csv")
        with pytest.raises(ExportError, match="a csv file holds one view, not 2"):
            exports.write_export(con, ["odd", "v_odd"], out, "csv")
    finally:
        con.close()
    assert out.read_text(encoding="utf-8") == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.csv", "x.duckdb"]


def test_read_xlsx_rows_picks_the_sheet_with_the_columns(tmp_path: Path):
    book = Workbook()
    book.active.title = "notes"
    book.active.append(["hello"])
    sheet = book.create_sheet("decisions")
    sheet.append(["source_url", "target_url", "decision", "score"])
    sheet.append(["http://x.test/a", "http://x.test/b", "accepted", 2.0])
    sheet.append(["http://x.test/c"])
    book.save(tmp_path / "d.xlsx")
    rows = exports.read_xlsx_rows(tmp_path / "d.xlsx", lambda header: "decision" in header)
    assert rows == [
        ["source_url", "target_url", "decision", "score"],
        ["http://x.test/a", "http://x.test/b", "accepted", "2"],
        ["http://x.test/c", "", "", ""],
    ]
    assert exports.read_xlsx_rows(tmp_path / "d.xlsx", lambda header: False) is None
    (tmp_path / "bad.xlsx").write_text("not a workbook", encoding="utf-8")
    with pytest.raises(ExportError, match="bad.xlsx is no readable XLSX workbook"):
        exports.read_xlsx_rows(tmp_path / "bad.xlsx", lambda header: True)


def test_decisions_read_back_a_csv_with_line_breaks_inside_cells(tmp_path: Path):
    path = tmp_path / "d.csv"
    path.write_text(
        "source_url,target_url,sentence,decision,decision_note\r\n"
        'http://x.test/a,http://x.test/b,"one\nline\u2028two",accepted,"a\nnote"\r\n',
        encoding="utf-8-sig",
    )
    [decision] = read_decisions_csv(path)
    assert (decision.source_url, decision.decision, decision.note) == (
        "http://x.test/a", "accepted", "a\nnote"
    )  # fmt: skip


def test_open_for_reading_waits_for_the_run_then_reads_the_database(db: Path):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('holding', flush=True); time.sleep(1.5); c.close()", str(db)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    told: list[str] = []
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        con, source = exports.open_for_reading(db, reader, 30, told.append)
        con.close()
    finally:
        holder.terminate()
        holder.wait(timeout=30)
    assert source == db
    assert told == [f"waiting for the run that holds {db} to finish (up to 30 s)..."]
