"""Resources: where the database lives and which embedding model is used."""

from __future__ import annotations

import os

import dagster as dg

from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

DEFAULT_DB = os.path.join(".linkpipe", "linkpipe.duckdb")


class LinkpipeSettings(dg.ConfigurableResource["LinkpipeSettings"]):
    """Database file and model; set with LINKPIPE_DB and LINKPIPE_MODEL or in code."""

    db_path: str = DEFAULT_DB
    model: str = DEFAULT_MODEL


def settings_from_env() -> LinkpipeSettings:
    """Settings for the Dagster UI / daemon, read from the environment."""
    return LinkpipeSettings(
        db_path=os.environ.get("LINKPIPE_DB", DEFAULT_DB),
        model=os.environ.get("LINKPIPE_MODEL", DEFAULT_MODEL),
    )
