"""A process-wide progress hook: stages report (stage, done, total); the CLI draws bars."""

from __future__ import annotations

from collections.abc import Callable

Reporter = Callable[[str, int, int], None]
_reporter: Reporter | None = None


def set_reporter(reporter: Reporter | None) -> None:
    """Install (or remove, with None) the function that receives progress reports."""
    global _reporter
    _reporter = reporter


def report(stage: str, done: int, total: int) -> None:
    """Tell the installed reporter how far ``stage`` has got.

    ``total`` is the whole count, except for the stage ``crawl``: there it is the number of
    URLs still queued (0 once the crawl is over), as the crawl does not know its size.
    """
    if _reporter is not None:
        _reporter(stage, done, total)
