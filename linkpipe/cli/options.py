"""Options shared by the command groups, each defined here once."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

MODEL_ENV = "LINKPIPE_MODEL"
DEBUG_HELP = "on an error, print the Python traceback and Dagster's error log as well"
CONFIG_HELP = (
    "TOML settings stored with the crawl: [crawl], [indexability], [page_types], [graph], [scoring]"
)


def default_model() -> str:
    """The embedding model when --model is not given: $LINKPIPE_MODEL, else the bundled one."""
    from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

    return os.environ.get(MODEL_ENV, DEFAULT_MODEL)


def add_db(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--db PATH``: required unless a default is given."""
    text = "DuckDB database file" + (f" (default: {default})" if default is not None else "")
    parser.add_argument(
        "--db", required=default is None, default=default, metavar="PATH", help=text
    )


def add_optional_db(parser: argparse.ArgumentParser, default_text: str) -> None:
    """``--db PATH`` whose default the command works out itself (described by default_text)."""
    parser.add_argument(
        "--db", metavar="PATH", help=f"DuckDB database file (default: {default_text})"
    )


def add_crawl_id(parser: argparse.ArgumentParser, default_text: str) -> None:
    """``--crawl-id ID``: the crawl partition written; default_text says what it defaults to."""
    parser.add_argument(
        "--crawl-id",
        metavar="ID",
        help=f"id of the crawl partition to write (default: {default_text})",
    )


def add_config(parser: argparse.ArgumentParser) -> None:
    """``--config FILE``: TOML settings of the crawl."""
    parser.add_argument("--config", metavar="FILE", help=CONFIG_HELP)


def add_max_pages(parser: argparse.ArgumentParser, default: int | None = None) -> None:
    """``--max-pages N``; without a default, [crawl] max_pages of --config or 10,000 applies."""
    text = f"{default:,}" if default is not None else "[crawl] max_pages of --config, else 10,000"
    parser.add_argument(
        "--max-pages",
        type=positive_int,
        default=default,
        metavar="N",
        help=f"stop the crawl after N pages (default: {text})",
    )


def add_model(parser: argparse.ArgumentParser) -> None:
    """``--model NAME``: the embedding model, defaulting to $LINKPIPE_MODEL or the bundled one."""
    parser.add_argument(
        "--model",
        default=default_model(),
        metavar="NAME",
        help=f"sentence-transformers model name or local path "
        f"(default: ${MODEL_ENV}, else the bundled all-MiniLM-L6-v2)",
    )


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def seconds(text: str) -> float:
    """An argparse type: a finite number of seconds, at least 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return value


def add_wait(parser: argparse.ArgumentParser, default: float = 60.0) -> None:
    """``--wait SECONDS``: how long a reader waits for a run that holds the database when
    there is no published copy to read instead."""
    parser.add_argument(
        "--wait",
        type=seconds,
        default=default,
        metavar="SECONDS",
        help="while a run holds the database and has published no copy yet, wait this long for "
        f"it before giving up (default: {default:g})",
    )


def add_keep_crawls(parser: argparse.ArgumentParser) -> None:
    """``--keep-crawls N``: after the run, prune the crawls older than the N most recent."""
    from linkpipe.lib.retention import DEFAULT_KEEP_CRAWLS

    parser.add_argument(
        "--keep-crawls",
        type=positive_int,
        default=DEFAULT_KEEP_CRAWLS,
        metavar="N",
        help="after the run, delete every partition of the crawls older than the N most recent "
        "crawls of the same start URL (site-wide decisions, signals and the embedding cache "
        f"stay); the published copy holds at most {DEFAULT_KEEP_CRAWLS} "
        f"(default: {DEFAULT_KEEP_CRAWLS}, a week of nightly runs)",
    )


def package_version() -> str:
    """The installed linkpipe version (``unknown`` when run from a checkout never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("linkpipe")
    except PackageNotFoundError:
        return "unknown"


def add_global_options(parser: argparse.ArgumentParser) -> None:
    """``--version``, and ``--debug`` before or after any command (call this last, once every
    command is registered)."""
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {package_version()}",
        help="print the version of linkpipe and exit",
    )
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    _add_debug_to_commands(parser)


def _add_debug_to_commands(parser: argparse.ArgumentParser) -> None:
    """``--debug`` on every command and sub-command; its default SUPPRESS keeps the value parsed
    before the command when the flag is absent after it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                command.add_argument(
                    "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
                )
                _add_debug_to_commands(command)
