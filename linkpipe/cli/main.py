"""`linkpipe demo | run | crawl | import | review | signals | eval | sql`: the command line."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    """The ``linkpipe`` parser with every command group."""
    from linkpipe.cli.eval import add_eval_parser
    from linkpipe.cli.pipeline import add_pipeline_parsers
    from linkpipe.cli.review import add_review_parser
    from linkpipe.cli.signals import add_signals_parser
    from linkpipe.cli.sql import add_sql_parser

    parser = argparse.ArgumentParser(
        prog="linkpipe",
        description="Find internal-link opportunities on a website.",
        epilog="`linkpipe COMMAND --help` describes each command.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_pipeline_parsers(sub)
    add_review_parser(sub)
    add_signals_parser(sub)
    add_eval_parser(sub)
    add_sql_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    from linkpipe.cli.errors import user_facing_errors

    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except user_facing_errors() as exc:
        print(f"linkpipe: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("linkpipe: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
