"""`linkpipe report --db PATH --out DIR`: the editor's report, a static HTML page."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options
from linkpipe.cli.errors import UserError

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers


def cmd_report(args: argparse.Namespace) -> None:
    """Gather the report from the database (only read), then write the folder."""
    from linkpipe.cli.sql import tell_waiting
    from linkpipe.lib import exports
    from linkpipe.lib.report.build import gather_report
    from linkpipe.lib.report.render import INDEX, write_report
    from linkpipe.lib.storage import connect

    db, out = Path(args.db), Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} is a file: give a folder for the report")
    con, source = exports.open_for_reading(
        db, lambda path: connect(path, read_only=True), args.wait, tell_waiting
    )
    if source != db:
        tell_waiting(f"{db} is held by a run: reporting on its last published copy, {source.name}")
    try:
        report = gather_report(con, args.crawl, args.max_suggestions, args.max_rows)
    finally:
        con.close()
    write_report(report, out)
    shown, total = len(report.suggestions), report.suggestions_total
    of = f" of {total:,}" if shown < total else ""
    diff = "no earlier crawl" if report.diff is None else f"diff with {report.diff.old_crawl_id}"
    print(
        f"wrote the report of crawl {report.crawl.crawl_id} ({shown:,}{of} suggestions, "
        f"{report.orphans.total:,} orphan pages, {diff}) to {out / INDEX}"
    )


def add_report_parser(sub: Subparsers) -> None:
    """Register ``report``."""
    from linkpipe.lib.report.data import DEFAULT_MAX_ROWS, DEFAULT_MAX_SUGGESTIONS

    p = sub.add_parser(
        "report",
        help="write a static HTML report for editors (open it from the folder, no server)",
        description="Write the editor's report of a crawl into a folder: index.html and "
        "plotly.min.js, opened from the file (no server, no internet). It shows the "
        "suggestions per source and per target page with the sentence and the anchor "
        "highlighted, filters (source, target, page types, minimum confidence, placement), "
        "the score and confidence distribution, content inlinks before and after the "
        "suggestions, a 2D map of the topic clusters, orphan and deep pages, and the diff "
        "with the crawl before. The database is only read. Example: linkpipe report --db "
        ".linkpipe/demo/linkpipe.duckdb --out report, then open report/index.html in a browser.",
        epilog="examples: linkpipe report --db .linkpipe/demo/linkpipe.duckdb --out report | "
        "linkpipe report --db .linkpipe/demo/linkpipe.duckdb --out report-c1 --crawl c1 "
        "--max-suggestions 500",
    )
    options.add_db(p)
    p.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="folder to write index.html and plotly.min.js into (created; the report files "
        "of an earlier report there are replaced)",
    )
    p.add_argument(
        "--crawl",
        metavar="ID",
        help="the crawl to report on; it must be complete (default: the latest complete crawl)",
    )
    p.add_argument(
        "--max-suggestions",
        type=options.positive_int,
        default=DEFAULT_MAX_SUGGESTIONS,
        metavar="N",
        help=f"show the N best suggestions by score (default: {DEFAULT_MAX_SUGGESTIONS:,}); "
        "the inlinks before/after assume these are accepted",
    )
    p.add_argument(
        "--max-rows",
        type=options.positive_int,
        default=DEFAULT_MAX_ROWS,
        metavar="N",
        help="rows shown of each other table: orphan and deep pages, suggestion and link "
        f"changes (default: {DEFAULT_MAX_ROWS:,})",
    )
    options.add_wait(p)
    p.set_defaults(func=cmd_report)
