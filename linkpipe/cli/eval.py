"""`linkpipe eval SITE_ROOT`: the link-recovery evaluation on the command line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from linkpipe.cli import options

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers

EVAL_DIR = Path(".linkpipe") / "eval"


def cmd_eval(args: argparse.Namespace) -> None:
    """Run every seed on a copy of the site and print the report table."""
    from linkpipe.cli.output import err_console
    from linkpipe.cli.progress import ProgressDisplay
    from linkpipe.evaluation import harness
    from linkpipe.evaluation.sites import DEBIAN_SITES

    if args.site_root.endswith(".duckdb"):
        print_anchor_quality(Path(args.site_root), args.crawl_id)
        return
    site = harness.eval_site_of(args.site_root)
    is_named = args.site_root in DEBIAN_SITES
    name = args.site_root if is_named else Path(str(site.root).rstrip("/")).name or "site"
    db = Path(args.db) if args.db else EVAL_DIR / f"{name}.duckdb"
    with ProgressDisplay(err_console) as display:
        report = harness.run_eval(
            site,
            args.seeds,
            args.fraction,
            db,
            args.model,
            max_pages=args.max_pages,
            json_path=Path(args.json) if args.json else None,
            log=display.log,
        )
    print(harness.format_report(report))


def print_anchor_quality(db: Path, crawl_id: str | None) -> None:
    """Print the well-formed share of the stored in-sentence anchors of a database's crawl."""
    from linkpipe.cli.errors import UserError
    from linkpipe.evaluation.anchor_quality import database_anchor_quality, format_quality

    if not db.is_file():
        raise UserError(f"database not found: {db}")
    try:
        crawl, quality = database_anchor_quality(db, crawl_id)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    print(f"{db}, crawl {crawl}")
    print(format_quality(quality))


def add_eval_parser(subparsers: Subparsers) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to the ``linkpipe`` parser."""
    p = subparsers.add_parser(
        "eval",
        help="remove links from a copy of a static site and measure how many linkpipe recovers",
        description=(
            "Copy a static site, remove a seeded share of its in-content links, serve the copy "
            "on 127.0.0.1 with a sitemap of its pages, run the whole graph on it and report "
            "recall@1/5/10, precision@1 and @10, "
            "anchor overlap, repeat share and the well-formed share of anchors for linkpipe "
            "and three baselines."
        ),
    )
    p.add_argument(
        "site_root",
        metavar="SITE_ROOT",
        help="folder of a static HTML site, or a named site installed from Debian packages "
        "when missing: 'gimp' (GIMP help, a prose manual), 'django' (Django docs), 'sqlite' "
        "(the SQLite website: FAQ, articles, release notes, references), 'javadoc' (Java SE "
        "17 API reference, java.util and java.io) or 'ikiwiki' (ikiwiki's documentation wiki); or a linkpipe database (*.duckdb): then "
        "only the well-formed share of its stored anchors is reported",
    )
    p.add_argument(
        "--crawl-id",
        metavar="ID",
        help="with a database: the crawl whose anchors are judged (default: the latest)",
    )
    p.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0, 1, 2],
        metavar="SEED",
        help="one run per seed of the link removal (default: 0 1 2)",
    )
    p.add_argument(
        "--fraction", type=float, default=0.2, help="share of linked pairs removed (default: 0.2)"
    )
    options.add_optional_db(p, ".linkpipe/eval/<site>.duckdb")
    options.add_max_pages(p, default=10_000)
    options.add_model(p)
    p.add_argument("--json", metavar="PATH", help="JSON report (default: beside the database)")
    p.set_defaults(func=cmd_eval)
    return p
