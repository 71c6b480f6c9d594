"""Errors the CLI reports as one line (``linkpipe: error: ...``) with exit status 1."""

from __future__ import annotations

import sys


class UserError(RuntimeError):
    """A problem the user can fix; printed as one line, exit status 1."""


def user_facing_errors() -> tuple[type[BaseException], ...]:
    """Exception types whose message is enough for the user: no traceback."""
    from linkpipe.lib.crawl import CrawlError
    from linkpipe.lib.importers import ImportFormatError
    from linkpipe.lib.run_config import ConfigError
    from linkpipe.lib.storage import StorageError
    from linkpipe.lib.vectors.embedding import EmbeddingError

    errors: list[type[BaseException]] = [
        UserError,
        StorageError,
        CrawlError,
        EmbeddingError,
        ImportFormatError,
        ConfigError,
        ValueError,
    ]
    # Only a command that ran the graph can raise RunFailed; the others need not import Dagster.
    runner = sys.modules.get("linkpipe.defs.runner")
    if runner is not None:
        errors.append(runner.RunFailed)
    return tuple(errors)
