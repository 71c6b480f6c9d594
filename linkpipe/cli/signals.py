"""`linkpipe signals import FILE --kind gsc|analytics|backlinks|priority`: business value."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers


def add_signals_parser(sub: Subparsers) -> None:
    """Register the ``signals`` subcommand."""
    signals = sub.add_parser("signals", help="import business-value signals from CSV exports")
    actions = signals.add_subparsers(dest="signals_command", required=True)
    p = actions.add_parser("import", help="replace the signals of one kind from a CSV")
    p.add_argument(
        "file",
        metavar="FILE",
        help="CSV export (Search Console, analytics, backlinks or a priority list)",
    )
    p.add_argument(
        "--kind",
        required=True,
        choices=["gsc", "analytics", "backlinks", "priority"],
        help="gsc: clicks, impressions, position; analytics: conversions; "
        "backlinks: referring domains; priority: a list of priority pages",
    )
    options.add_db(p)
    p.set_defaults(func=cmd_signals_import)


def cmd_signals_import(args: argparse.Namespace) -> None:
    from linkpipe.lib.value.signals import read_signals_csv, save_signals

    path = Path(args.file)
    rows = read_signals_csv(path, args.kind)
    n = save_signals(args.db, args.kind, rows, str(path.resolve()))
    print(f"imported {n} {args.kind} rows; they count from the next link_opportunities run")
