"""`linkpipe eval SITE_ROOT`: the link-recovery evaluation on the command line."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

EVAL_DIR = Path(".linkpipe") / "eval"


def _site_name(site: str) -> str:
    return Path(site.rstrip("/")).name or "site"


def cmd_eval(args: argparse.Namespace) -> None:
    from linkpipe.cli.output import ProgressPrinter
    from linkpipe.evaluation import harness
    from linkpipe.lib import progress

    root = harness.site_root_of(args.site_root)
    name = args.site_root if args.site_root in harness.DEBIAN_SITES else _site_name(str(root))
    db = Path(args.db) if args.db else EVAL_DIR / f"{name}.duckdb"
    progress.set_reporter(ProgressPrinter())
    try:
        report = harness.run_eval(
            root,
            args.seeds,
            args.fraction,
            db,
            args.model,
            max_pages=args.max_pages,
            json_path=Path(args.json) if args.json else None,
        )
    finally:
        progress.set_reporter(None)
    print(harness.format_report(report))


def add_eval_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``eval`` subcommand to the ``linkpipe`` parser."""
    from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

    p = subparsers.add_parser(
        "eval",
        help="remove links from a copy of a static site and measure how many linkpipe recovers",
        description=(
            "Copy a static site, remove a seeded share of its in-content links, serve the copy "
            "on 127.0.0.1, run the whole graph on it and report recall@1/5/10, precision@10, "
            "anchor overlap and repeat share for linkpipe and three baselines."
        ),
    )
    p.add_argument(
        "site_root",
        metavar="SITE_ROOT",
        help="folder of a static HTML site, or 'gimp' / 'django' (Debian packages, installed "
        "when missing)",
    )
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--fraction", type=float, default=0.2, help="share of linked pairs removed")
    p.add_argument("--db", help="DuckDB file (default .linkpipe/eval/<site>.duckdb)")
    p.add_argument("--max-pages", type=int, default=10_000)
    p.add_argument(
        "--model",
        default=os.environ.get("LINKPIPE_MODEL", DEFAULT_MODEL),
        help="sentence-transformers model name or path (default: the bundled MiniLM)",
    )
    p.add_argument("--json", metavar="PATH", help="JSON report (default beside the database)")
    p.set_defaults(func=cmd_eval)
    return p
