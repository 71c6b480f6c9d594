"""`linkpipe export --db PATH --out FILE`: views and tables as CSV, XLSX or Parquet files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options
from linkpipe.cli.errors import UserError

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers


def cmd_export(args: argparse.Namespace) -> None:
    """Write the chosen views to ``--out``; the database is only read."""
    from linkpipe.cli.sql import tell_waiting
    from linkpipe.lib import exports
    from linkpipe.lib.storage import connect

    db, out = Path(args.db), Path(args.out)
    if out.resolve() in {db.resolve(), exports.published_path(db).resolve()}:
        raise UserError(f"--out {out} is the database itself: name another file")
    fmt = exports.export_format(out, args.format)
    con, source = exports.open_for_reading(
        db, lambda path: connect(path, read_only=True), args.wait, tell_waiting
    )
    if source != db:
        tell_waiting(f"{db} is held by a run: exporting its last published copy, {source.name}")
    try:
        views = exports.checked_views(con, args.view or exports.default_views(con, fmt))
        written = exports.write_export(con, views, out, fmt)
    finally:
        con.close()
    counts = ", ".join(
        f"{view} ({rows:,} row{'' if rows == 1 else 's'})" for view, rows in written.items()
    )
    print(f"wrote {counts} to {out}")
    if fmt == "xlsx" and exports.XLSX_MAX_ROWS in written.values():
        tell_waiting(f"sheets stop at Excel's {exports.XLSX_MAX_ROWS:,} rows: use .parquet")


def add_export_parser(sub: Subparsers) -> None:
    """Register ``export``."""
    p = sub.add_parser(
        "export",
        help="write views to a CSV, XLSX or Parquet file",
        description="Write views (or tables) of the database to a file for spreadsheets and "
        "other tools. CSV (UTF-8 with a BOM, for Excel) and Parquet (DuckDB's writer) hold one "
        "view; XLSX holds one sheet per view, header frozen, URLs as links. Editors can fill in "
        "the decision column of v_opportunities and read the file back with "
        "`linkpipe review import`.",
        epilog="examples: linkpipe export --db .linkpipe/demo/linkpipe.duckdb --out "
        "suggestions.xlsx | linkpipe export --db .linkpipe/demo/linkpipe.duckdb --out "
        "orphans.csv --view v_orphan_pages",
    )
    options.add_db(p)
    p.add_argument("--out", required=True, metavar="FILE", help="the file to write")
    p.add_argument(
        "--format",
        choices=["csv", "xlsx", "parquet"],
        help="file format (default: from the extension of --out: .csv, .xlsx, .parquet)",
    )
    p.add_argument(
        "--view",
        action="extend",
        nargs="+",
        metavar="NAME",
        help="views or tables to write (default: v_opportunities; for XLSX v_opportunities, "
        "v_orphan_pages, v_excluded_pages, v_page_metrics and the crawl diff, v_suggestion_changes "
        "and v_link_changes)",
    )
    options.add_wait(p)
    p.set_defaults(func=cmd_export)
