"""`linkpipe demo | run | crawl | import | review | signals | eval | sql`: the command line."""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from linkpipe.lib import stopping


def build_parser() -> argparse.ArgumentParser:
    """The ``linkpipe`` parser with every command group."""
    from linkpipe.cli.eval import add_eval_parser
    from linkpipe.cli.export import add_export_parser
    from linkpipe.cli.options import add_global_options
    from linkpipe.cli.pipeline import add_pipeline_parsers
    from linkpipe.cli.report import add_report_parser
    from linkpipe.cli.review import add_review_parser
    from linkpipe.cli.signals import add_signals_parser
    from linkpipe.cli.sql import add_sql_parser
    from linkpipe.cli.whatif import add_whatif_parser

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
    add_export_parser(sub)
    add_whatif_parser(sub)
    add_report_parser(sub)
    add_global_options(parser)  # last: --debug goes on every command
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.debug:  # Dagster's console log shows each failed step with its traceback
        os.environ.setdefault("LINKPIPE_DAGSTER_LOG_LEVEL", "ERROR")
    undo = stopping.watch()  # SIGTERM stops as Ctrl-C does; no stop request is lost
    try:
        return _run(args)
    finally:
        undo()


def _run(args: argparse.Namespace) -> int:
    """Run the chosen command; errors become one line and an exit status."""
    from linkpipe.cli.errors import user_facing_errors

    try:
        args.func(args)
    except user_facing_errors() as exc:
        return _report_error(str(exc), args.debug)
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("linkpipe: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # mostly a path given: missing, a folder, not allowed
        text = f"{exc.strerror}: {exc.filename}" if exc.strerror and exc.filename else str(exc)
        return _report_error(text, args.debug)
    except Exception as exc:  # an unexpected failure: one line unless --debug
        first_line = next(iter(str(exc).strip().splitlines()), "")
        hint = "" if args.debug else " (run with --debug for the traceback)"
        return _report_error(f"{type(exc).__name__}: {first_line}{hint}", args.debug)
    return 0


def _report_error(message: str, debug: bool) -> int:
    """Print the error as one line (after the traceback with --debug); the exit status."""
    if debug:
        traceback.print_exc()
    print(f"linkpipe: error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
