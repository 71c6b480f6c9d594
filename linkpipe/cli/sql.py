"""`linkpipe sql "QUERY"`: a read-only query, on the published copy while a run holds the lock."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options
from linkpipe.cli.errors import UserError

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers


def cmd_sql(args: argparse.Namespace) -> None:
    """Run the query read-only and print its rows."""
    import duckdb

    from linkpipe.cli.output import print_rows
    from linkpipe.lib.storage import StorageError, connect

    db = Path(args.db)
    published = db.with_name(db.stem + ".published.duckdb")
    try:
        con = connect(db, read_only=True)
    except StorageError:
        if not published.exists():
            raise
        con = connect(published, read_only=True)  # the writer holds the lock: read the copy
    try:
        cur = con.execute(args.query)
    except duckdb.Error as exc:
        raise UserError(f"query failed: {str(exc).splitlines()[0]}") from exc
    if cur.description is None:
        return
    print_rows([d[0] for d in cur.description], cur.fetchall(), args.format)


def add_sql_parser(sub: Subparsers) -> None:
    """Register ``sql``."""
    p = sub.add_parser("sql", help="run a read-only SQL query")
    options.add_db(p)
    p.add_argument(
        "--format",
        choices=["table", "csv", "tsv"],
        default="table",
        help="output format (default: table)",
    )
    p.add_argument("query", metavar="QUERY", help='SQL, e.g. "SELECT * FROM v_opportunities"')
    p.set_defaults(func=cmd_sql)
