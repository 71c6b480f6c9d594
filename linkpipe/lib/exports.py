"""What leaves the database for readers: the connection a reader gets while a run may hold the
write lock (the last published copy, or a bounded wait), and the files ``linkpipe export``
writes from tables and views: CSV with a UTF-8 BOM (Excel reads it right), Parquet through
DuckDB's own ``COPY ... (FORMAT parquet)``, and XLSX with one sheet per view (by default the
suggestions, orphan, excluded pages, page metrics and the crawl diff). A file is written
beside its destination and moved into place when complete, so a failed export leaves nothing.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zipfile import BadZipFile

import duckdb

from linkpipe.lib.storage import StorageError, fetch_dicts, load_sql

if TYPE_CHECKING:
    from openpyxl.worksheet._write_only import WriteOnlyWorksheet

FORMATS = {".csv": "csv", ".xlsx": "xlsx", ".parquet": "parquet", ".pq": "parquet"}
DEFAULT_VIEW = "v_opportunities"
XLSX_VIEWS = ("v_opportunities", "v_orphan_pages", "v_excluded_pages")
# Included when the file has them (a copy written by an older linkpipe may not); the crawl
# diff sheets hold only a header while the site has a single complete crawl.
XLSX_OPTIONAL_VIEWS = ("v_page_metrics", "v_suggestion_changes", "v_link_changes")
XLSX_MAX_ROWS = 1_048_575  # Excel's rows per sheet, less the header
XLSX_MAX_LINKS = 65_530  # Excel's hyperlinks per sheet; later URLs are written as text
XLSX_MAX_TEXT = 32_767  # Excel's characters per cell
WIDTH_SAMPLE = 200  # rows read to size the columns
BATCH = 2_000
_ILLEGAL_XML = re.compile(r"[\000-\010]|[\013-\014]|[\016-\037]")

Connect = Callable[[Path], duckdb.DuckDBPyConnection]


class ExportError(ValueError):
    """The export cannot be written as asked; the message is one line for the user."""


def published_path(db: Path) -> Path:
    """``<stem>.published.duckdb`` beside the database: the copy a run publishes for readers."""
    return db.with_name(db.stem + ".published.duckdb")


def open_for_reading(
    db: Path, connect: Connect, wait_s: float, on_wait: Callable[[str], None]
) -> tuple[duckdb.DuckDBPyConnection, Path]:
    """Open ``db`` with ``connect``; while another process holds its write lock, open the last
    published copy instead, or, with none yet (or while the run updates it, a few seconds),
    wait up to ``wait_s`` seconds (``on_wait`` tells the user once) for either. Returns the
    connection and the file it reads."""
    deadline = time.monotonic() + wait_s
    told = False
    while True:
        try:
            return connect(db), db
        except StorageError as exc:
            if "lock" not in str(exc).lower():
                raise
            holder = re.search(r"\(PID (\d+)\)", str(exc))
        published = published_path(db)
        try:
            if published.exists():
                return connect(published), published
        except StorageError as exc:
            if "lock" not in str(exc).lower():
                raise  # else the run is writing its update into the copy: wait for it
        if time.monotonic() >= deadline:
            by = f" (PID {holder.group(1)})" if holder else ""
            state = (
                "is updating its published copy"
                if published.exists()
                else "has no published copy yet"
            )
            raise StorageError(
                f"{db} is held by another process{by} and {state}; "
                f"waited {wait_s:g} s: try again when the run finishes, or give a longer --wait"
            )
        if not told:
            on_wait(f"waiting for the run that holds {db} to finish (up to {wait_s:g} s)...")
            told = True
        time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))


def export_format(out: Path, given: str | None) -> str:
    """``given``, else the format named by the extension of ``out``."""
    if given:
        return given
    fmt = FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ExportError(
            f"cannot tell the format of {out.name!r} from its extension: "
            "name it .csv, .xlsx or .parquet, or give --format"
        )
    return fmt


def relation_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the tables and views of the open database."""
    return [str(r["table_name"]) for r in fetch_dicts(con, "read/select_relations")]


def checked_views(con: duckdb.DuckDBPyConnection, names: Sequence[str]) -> list[str]:
    """``names`` as the database spells them; any that is no table or view raises ExportError
    (the only names that ever reach a query)."""
    known = {n.lower(): n for n in relation_names(con)}
    missing = [n for n in names if n.lower() not in known]
    if missing:
        views = ", ".join(n for n in known.values() if n.startswith("v_"))
        raise ExportError(f"no table or view named {', '.join(missing)} (views: {views})")
    return list(dict.fromkeys(known[n.lower()] for n in names))


def default_views(con: duckdb.DuckDBPyConnection, fmt: str) -> list[str]:
    """What is exported without --view: the opportunities, or for XLSX the editors' sheets."""
    if fmt != "xlsx":
        return [DEFAULT_VIEW]
    present = set(relation_names(con))
    return [*XLSX_VIEWS, *(v for v in XLSX_OPTIONAL_VIEWS if v in present)]


def write_export(
    con: duckdb.DuckDBPyConnection, views: Sequence[str], out: Path, fmt: str
) -> dict[str, int]:
    """Write ``views`` (checked names) to ``out`` as ``fmt``; rows written per view."""
    if fmt != "xlsx" and len(views) != 1:
        raise ExportError(f"a {fmt} file holds one view, not {len(views)}: use .xlsx for several")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.partial")
    try:
        if fmt == "csv":
            written = {views[0]: write_csv(con, views[0], tmp)}
        elif fmt == "parquet":
            written = {views[0]: write_parquet(con, views[0], tmp)}
        else:
            written = write_xlsx(con, views, tmp)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return written


def _row_batches(
    con: duckdb.DuckDBPyConnection, view: str
) -> tuple[list[str], Iterator[list[tuple[Any, ...]]]]:
    """Column names of ``view`` and its rows, ``BATCH`` at a time."""
    cur = con.execute(load_sql("read/select_relation_rows"), [view])
    columns = [d[0] for d in cur.description or []]

    def batches() -> Iterator[list[tuple[Any, ...]]]:
        while batch := cur.fetchmany(BATCH):
            yield batch

    return columns, batches()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what spreadsheets read as a formula


def _csv_text(value: object) -> object:
    """A CSV cell: text a spreadsheet would run as a formula (a crawled title such as
    ``=HYPERLINK(...)``) gets a leading apostrophe, which Excel and LibreOffice show as text."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value.hex() if isinstance(value, bytes) else value


def write_csv(con: duckdb.DuckDBPyConnection, view: str, out: Path) -> int:
    """``view`` as CSV (UTF-8 with a BOM, header first); rows written."""
    columns, batches = _row_batches(con, view)
    rows = 0
    with out.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for batch in batches:
            writer.writerows([_csv_text(v) for v in row] for row in batch)
            rows += len(batch)
    return rows


def write_parquet(con: duckdb.DuckDBPyConnection, view: str, out: Path) -> int:
    """``view`` as Parquet, written by DuckDB's COPY; rows written."""
    result = con.execute(load_sql("write/copy_relation_to_parquet"), [view, str(out)]).fetchone()
    return int(result[0]) if result else 0


def write_xlsx(con: duckdb.DuckDBPyConnection, views: Sequence[str], out: Path) -> dict[str, int]:
    """One sheet per view, named after it; rows written per view."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    written: dict[str, int] = {}
    for view in views:
        sheet = book.create_sheet(_sheet_title(view, list(book.sheetnames)))
        written[view] = _write_sheet(sheet, *_row_batches(con, view))
    book.save(out)
    return written


def _sheet_title(view: str, taken: list[str]) -> str:
    """The view's name cut to Excel's 31 characters, made unique in the workbook."""
    title, n = view[:31], 1
    while title.lower() in (t.lower() for t in taken):
        n += 1
        title = f"{view[: 31 - len(str(n)) - 1]}~{n}"
    return title


def is_url_column(name: str) -> bool:
    """Columns written as hyperlinks: ``url`` and ``*_url``."""
    return name.lower() == "url" or name.lower().endswith("_url")


def _write_sheet(
    sheet: WriteOnlyWorksheet, columns: list[str], batches: Iterator[list[tuple[Any, ...]]]
) -> int:
    """Header (bold, frozen, filterable), column widths, then the rows, at most Excel's limit
    of them; rows written."""
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    first = next(batches, [])
    for index, width in enumerate(_column_widths(columns, first[:WIDTH_SAMPLE]), start=1):
        sheet.column_dimensions[get_column_letter(index)].width = width
    sheet.freeze_panes = "A2"
    header = [WriteOnlyCell(sheet, value=_excel_value(c)) for c in columns]
    for cell in header:
        cell.font = Font(bold=True)
    sheet.append(header)
    url_columns = [is_url_column(c) for c in columns]
    rows = links = 0
    for batch in chain([first], batches):
        for row in batch[: XLSX_MAX_ROWS - rows]:
            cells = []
            for value, url_column in zip(row, url_columns, strict=True):
                cell, linked = _sheet_cell(sheet, value, url_column and links < XLSX_MAX_LINKS)
                cells.append(cell)
                links += linked
            sheet.append(cells)
        rows = min(XLSX_MAX_ROWS, rows + len(batch))
    if columns:
        sheet.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{rows + 1}"
    return rows


def _sheet_cell(sheet: WriteOnlyWorksheet, value: object, may_link: bool) -> tuple[object, bool]:
    """A cell for ``value`` and whether it is a hyperlink (an http(s) URL when ``may_link``):
    text stays text (never a formula), other values are stored as Excel types."""
    from openpyxl.cell import WriteOnlyCell

    value = _excel_value(value)
    if not isinstance(value, str):
        return value, False
    cell = WriteOnlyCell(sheet, value=value)
    cell.data_type = "s"  # "=..." from a crawled page stays text
    if may_link and value.startswith(("http://", "https://")) and len(value) <= 2_079:
        cell.hyperlink = value
        cell.style = "Hyperlink"
        return cell, True
    return cell, False


def _excel_value(value: object) -> object:
    """``value`` as a cell can hold it: text cleaned of control characters and cut to Excel's
    length, times without a zone (UTC), anything Excel has no type for as text."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC).replace(tzinfo=None)
    if isinstance(value, dt.time) and value.tzinfo is not None:
        return value.isoformat()
    if value is None or isinstance(value, bool | int | Decimal | dt.date | dt.time):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, bytes):
        value = value.hex()
    return _ILLEGAL_XML.sub("", str(value))[:XLSX_MAX_TEXT]


def _column_widths(columns: list[str], sample: list[tuple[Any, ...]]) -> list[float]:
    """Widths that fit the header and the sampled values, between 8 and 60 characters."""
    widths = []
    for index, name in enumerate(columns):
        values = (str(row[index]) for row in sample if row[index] is not None)
        longest = max([len(name), *(len(v) for v in values)])
        widths.append(float(min(60, max(8, longest + 2))))
    return widths


def read_xlsx_rows(path: Path, wanted: Callable[[list[str]], bool]) -> list[list[str]] | None:
    """The rows (header first, every cell as text, short rows padded to the header) of the
    first sheet of an XLSX file whose header row passes ``wanted``; None when no sheet does.
    A file that is no readable workbook raises ExportError."""
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (OSError, KeyError, ValueError, BadZipFile, InvalidFileException) as exc:
        raise ExportError(f"{path.name} is no readable XLSX workbook: {exc}") from exc
    try:
        for sheet in book.worksheets:
            rows = sheet.iter_rows(values_only=True)
            header = [_cell_text(v) for v in next(rows, ())]
            if wanted(header):
                body = ([_cell_text(v) for v in row] for row in rows)
                return [header, *(cells + [""] * (len(header) - len(cells)) for cells in body)]
        return None
    finally:
        book.close()


def _cell_text(value: object) -> str:
    """A cell read back as the text a CSV would hold."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)
