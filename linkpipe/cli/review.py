"""`linkpipe review import | set | export`: editors' decisions on suggestions."""

from __future__ import annotations

import argparse
import csv
import sys
from contextlib import nullcontext
from pathlib import Path


def add_review_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``review`` subcommand and its actions."""
    review = sub.add_parser("review", help="record editors' decisions on suggestions")
    actions = review.add_subparsers(dest="review_command", required=True)

    p = actions.add_parser("import", help="read decisions from a CSV editors filled in")
    p.add_argument("file")
    p.add_argument("--db", required=True)
    p.set_defaults(func=cmd_review_import)

    p = actions.add_parser("set", help="record one decision")
    p.add_argument("source_url")
    p.add_argument("target_url")
    p.add_argument("decision", choices=["accepted", "rejected", "deferred"])
    p.add_argument("--db", required=True)
    p.add_argument("--by", default="", help="who decided")
    p.add_argument("--note", default="")
    p.set_defaults(func=cmd_review_set)

    p = actions.add_parser("export", help="write the latest suggestions as a CSV to review")
    p.add_argument("file", help="output CSV path, or - for standard output")
    p.add_argument("--db", required=True)
    p.set_defaults(func=cmd_review_export)


def _latest_crawl(db: Path) -> str | None:
    from linkpipe.lib.storage import open_db

    with open_db(db) as con:
        row = con.execute("SELECT crawl_id FROM v_latest_crawl").fetchone()
    return row[0] if row else None


def cmd_review_import(args: argparse.Namespace) -> None:
    from linkpipe.lib.value.decisions import read_decisions_csv, save_decisions

    decisions = read_decisions_csv(Path(args.file))
    n = save_decisions(args.db, decisions, _latest_crawl(Path(args.db)))
    counts = {
        k: sum(d.decision == k for d in decisions) for k in ("accepted", "rejected", "deferred")
    }
    print(f"recorded {n} decisions: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


def cmd_review_set(args: argparse.Namespace) -> None:
    from linkpipe.lib.value.decisions import Decision, save_decisions

    decision = Decision(args.source_url, args.target_url, args.decision, args.by, "", args.note)
    save_decisions(args.db, [decision], _latest_crawl(Path(args.db)))
    print(f"{args.decision}: {args.source_url} -> {args.target_url}")


def cmd_review_export(args: argparse.Namespace) -> None:
    from linkpipe.lib.storage import load_sql, open_db

    with open_db(args.db) as con:
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
