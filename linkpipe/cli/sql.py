"""`linkpipe sql "QUERY"`: a read-only query, on the published copy while a run holds the lock.

The door admits queries only. The connection (``storage.connect_query_only``) cannot read or
write any file but the database, install or load extensions, or change settings; on top of it
only SELECT (with DESCRIBE, SHOW, SUMMARIZE), EXPLAIN and PRAGMA statements run, because DuckDB
lets even such a connection ATTACH an in-memory database and re-attach its own file read-write.
Files are written by ``linkpipe export``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options
from linkpipe.cli.errors import UserError

if TYPE_CHECKING:
    import duckdb

    from linkpipe.cli.options import Subparsers

QUERY_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA"})


def cmd_sql(args: argparse.Namespace) -> None:
    """Run the query read-only and print its rows."""
    from linkpipe.cli.output import pick_columns, print_rows
    from linkpipe.lib.exports import open_for_reading
    from linkpipe.lib.storage import connect_query_only

    db = Path(args.db)
    con, source = open_for_reading(db, connect_query_only, args.wait, tell_waiting)
    if source != db:
        tell_waiting(f"{db} is held by a run: reading its last published copy, {source.name}")
    try:
        cur = run_query(con, args.query)
        if cur.description is not None:
            columns, rows = [d[0] for d in cur.description], cur.fetchall()
            if args.columns:
                columns, rows = pick_columns(columns, rows, args.columns)
            print_rows(columns, rows, args.format)
    finally:
        con.close()


def tell_waiting(message: str) -> None:
    """A note on standard error (standard output keeps the rows only)."""
    print(f"linkpipe: {message}", file=sys.stderr, flush=True)


def run_query(con: duckdb.DuckDBPyConnection, query: str) -> duckdb.DuckDBPyConnection:
    """Execute every statement of ``query`` after checking that each one is a query; the
    cursor of the last. Any other statement, or a failing one, raises a one-line UserError."""
    import duckdb

    try:
        statements = con.extract_statements(query)
    except (duckdb.Error, ValueError) as exc:  # ValueError: a statement type Python lacks
        raise UserError(f"query failed: {error_text(exc)}") from exc
    if not statements:
        raise UserError("query failed: the query is empty")
    for statement in statements:
        kind = statement_kind(statement)
        if kind not in QUERY_STATEMENTS:
            raise UserError(
                f"query failed: {kind} statements cannot run here: `linkpipe sql` is read-only "
                "and runs SELECT, EXPLAIN and PRAGMA queries only (files: `linkpipe export`)"
            )
    cur = con
    for statement in statements:
        try:
            cur = con.execute(statement)
        except duckdb.Error as exc:
            raise UserError(f"query failed: {error_text(exc)}") from exc
    return cur


def statement_kind(statement: duckdb.Statement) -> str:
    """SELECT, ATTACH, COPY...: DuckDB's type of the statement, else its first word (for types
    newer than the Python enum, such as UPDATE EXTENSIONS)."""
    try:
        return str(statement.type.name)
    except ValueError:
        words = statement.query.split()
        return words[0].upper() if words else "EMPTY"


def error_text(exc: BaseException) -> str:
    """DuckDB's message with its hints ("Did you mean ...") on one line, without the echo of
    the query (``LINE 1: ...``) that follows them."""
    kept: list[str] = []
    for line in str(exc).strip().splitlines():
        if not line.strip() or line.startswith("LINE "):
            break
        kept.append(line.strip())
    return " ".join(kept) or type(exc).__name__


def add_sql_parser(sub: Subparsers) -> None:
    """Register ``sql``."""
    p = sub.add_parser(
        "sql",
        help="run a read-only SQL query",
        description="Run a read-only query: no file but the database is read or written, "
        "nothing attached, installed or loaded, no setting changed (write files with "
        "`linkpipe export`). While a run holds the database, the query reads the run's last "
        "published copy, or waits for the run when there is none yet.",
        epilog='example: linkpipe sql --db .linkpipe/demo/linkpipe.duckdb "SELECT source_url, '
        'target_url, anchor_text, score FROM v_opportunities LIMIT 20"',
    )
    options.add_db(p)
    p.add_argument(
        "--format",
        choices=["table", "csv", "tsv"],
        default="table",
        help="output format (default: table; csv and tsv keep full precision)",
    )
    p.add_argument(
        "--columns",
        metavar="A,B",
        help="show only these columns of the result, in this order (a table too wide for the "
        "terminal leaves columns out and names them)",
    )
    options.add_wait(p)
    p.add_argument("query", metavar="QUERY", help='SQL, e.g. "SELECT * FROM v_opportunities"')
    p.set_defaults(func=cmd_sql)
