"""`linkpipe review import | set | export`: editors' decisions on suggestions."""

from __future__ import annotations

import argparse
import csv
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers
    from linkpipe.lib.value.decisions import Decision


def add_review_parser(sub: Subparsers) -> None:
    """Register the ``review`` subcommand and its actions."""
    review = sub.add_parser("review", help="record editors' decisions on suggestions")
    actions = review.add_subparsers(dest="review_command", required=True)

    p = actions.add_parser("import", help="read decisions from a CSV editors filled in")
    p.add_argument(
        "file",
        metavar="FILE",
        help="CSV as written by `review export`, or a CSV or XLSX file of `linkpipe export`, "
        "filled in",
    )
    options.add_db(p)
    p.set_defaults(func=cmd_review_import)

    p = actions.add_parser("set", help="record one decision")
    p.add_argument("source_url", metavar="SOURCE", help="URL of the page the link would be on")
    p.add_argument("target_url", metavar="TARGET", help="URL the link would point to")
    p.add_argument("decision", choices=["accepted", "rejected", "deferred"], help="the decision")
    options.add_db(p)
    p.add_argument("--by", default="", help="who decided")
    p.add_argument("--note", default="", help="a free-text note kept with the decision")
    p.set_defaults(func=cmd_review_set)

    p = actions.add_parser("export", help="write the latest suggestions as a CSV to review")
    p.add_argument("file", metavar="FILE", help="output CSV path, or - for standard output")
    options.add_db(p)
    p.set_defaults(func=cmd_review_export)


def _latest_crawl(db: Path) -> str | None:
    from linkpipe.lib.storage import fetch_dicts, open_db

    with open_db(db) as con:
        rows = fetch_dicts(con, "read/select_latest_crawl")
    return str(rows[0]["crawl_id"]) if rows else None


def _save_with_warnings(db: Path, decisions: list[Decision]) -> int:
    """Record the decisions; warn on stderr, one line per pair, about those whose pages no crawl
    knows (they are recorded all the same)."""
    from linkpipe.lib.value.decisions import save_decisions, unknown_pair_warnings

    warnings = unknown_pair_warnings(db, decisions)
    n = save_decisions(db, decisions, _latest_crawl(db))
    for line in warnings:
        print(line, file=sys.stderr)
    return n


def cmd_review_import(args: argparse.Namespace) -> None:
    from linkpipe.lib.value.decisions import read_decisions_csv

    decisions = read_decisions_csv(Path(args.file))
    n = _save_with_warnings(Path(args.db), decisions)
    counts = {
        k: sum(d.decision == k for d in decisions) for k in ("accepted", "rejected", "deferred")
    }
    print(f"recorded {n} decisions: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


def cmd_review_set(args: argparse.Namespace) -> None:
    from linkpipe.lib.value.decisions import Decision, check_decision_urls

    decision = Decision(args.source_url, args.target_url, args.decision, args.by, "", args.note)
    check_decision_urls(decision)  # before the database is opened: a bad URL writes nothing
    _save_with_warnings(Path(args.db), [decision])
    print(f"{args.decision}: {args.source_url} -> {args.target_url}")


def cmd_review_export(args: argparse.Namespace) -> None:
    """Write the latest suggestions as a CSV (reads only: a missing database is an error)."""
    from linkpipe.lib.storage import load_sql, open_db

    with open_db(args.db, read_only=True) as con:
        cur = con.execute(load_sql("read/select_review_export"))
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
    to_stdout = args.file == "-"
    with (
        nullcontext(sys.stdout)
        if to_stdout
        else open(  # noqa: SIM115
            args.file, "w", newline="", encoding="utf-8"
        ) as handle
    ):
        writer = csv.writer(handle)
        writer.writerow(names)
        writer.writerows(rows)
    if args.file != "-":
        print(f"wrote {len(rows)} suggestions to {args.file}")
