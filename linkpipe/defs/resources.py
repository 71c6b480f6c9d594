"""Resources: where the database lives, which embedding model is used, how many crawls the
published copy keeps."""

from __future__ import annotations

import os

import dagster as dg

from linkpipe.lib.retention import DEFAULT_KEEP_CRAWLS
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

DEFAULT_DB = os.path.join(".linkpipe", "linkpipe.duckdb")


class LinkpipeSettings(dg.ConfigurableResource["LinkpipeSettings"]):
    """Database file, model and crawls kept in the published copy; set with LINKPIPE_DB,
    LINKPIPE_MODEL and LINKPIPE_KEEP_CRAWLS or in code."""

    db_path: str = DEFAULT_DB
    model: str = DEFAULT_MODEL
    keep_crawls: int = DEFAULT_KEEP_CRAWLS


def settings_from_env() -> LinkpipeSettings:
    """Settings for the Dagster UI / daemon, read from the environment."""
    return LinkpipeSettings(
        db_path=os.environ.get("LINKPIPE_DB", DEFAULT_DB),
        model=os.environ.get("LINKPIPE_MODEL", DEFAULT_MODEL),
        keep_crawls=int(os.environ.get("LINKPIPE_KEEP_CRAWLS", DEFAULT_KEEP_CRAWLS)),
    )
