"""`linkpipe whatif --db PATH [--accepted | --top N]`: the link graph after suggestions."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from linkpipe.cli import options

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers


def cmd_whatif(args: argparse.Namespace) -> None:
    """Compute the scenario, write ``whatif_pages`` and print the site summary."""
    from linkpipe.lib.links.whatif import Scenario, run_whatif, summary_lines

    scenario = Scenario(top=args.top)
    summary, written = run_whatif(args.db, scenario, args.crawl_id)
    for line in summary_lines(summary):
        print(line)
    print(
        f"wrote {written} rows to whatif_pages (crawl_id '{summary.crawl_id}', "
        f"scenario '{summary.scenario}')"
    )


def add_whatif_parser(sub: Subparsers) -> None:
    """Register ``whatif``."""
    p = sub.add_parser(
        "whatif",
        help="show what implementing suggestions would do to PageRank, click depth and orphans",
        description="Add the chosen suggestions to a crawl's link graph as content links and "
        "compare each page's PageRank, click depth and orphan status before and after. Writes "
        "the table whatif_pages (one row per page, keyed by crawl_id and scenario) and prints "
        "a summary: orphans fixed, pages moved to click depth 3 or less ([graph] deep_threshold "
        "of the crawl), PageRank Gini before "
        "and after, biggest PageRank gains.",
        epilog="examples: linkpipe whatif --db .linkpipe/demo/linkpipe.duckdb --top 3 | "
        "linkpipe whatif --db .linkpipe/demo/linkpipe.duckdb --accepted | linkpipe sql --db "
        '.linkpipe/demo/linkpipe.duckdb "SELECT * FROM whatif_pages ORDER BY pagerank_gain '
        'DESC LIMIT 10"',
    )
    options.add_db(p)
    choice = p.add_mutually_exclusive_group()
    choice.add_argument(
        "--accepted",
        action="store_true",
        help="implement the suggestions editors accepted (`linkpipe review`; the default)",
    )
    choice.add_argument(
        "--top",
        type=options.positive_int,
        metavar="N",
        help="implement the N best suggestions of each source page instead",
    )
    p.add_argument(
        "--crawl-id",
        metavar="ID",
        help="the crawl whose link graph is changed (default: the latest complete crawl)",
    )
    p.set_defaults(func=cmd_whatif)
