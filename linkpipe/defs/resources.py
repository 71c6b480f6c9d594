"""Resources: where the database lives, which embedding model is used, how many crawls the
published copy keeps (``settings``), and the database as dagster-duckdb's ``DuckDBResource``
(``duckdb``), built from the same path.

The stages of ``linkpipe.lib.stages`` get the path and open the file through
``linkpipe.lib.storage`` (schema, lock waits, one transaction per partition write); the Dagster
code's own reads (asset checks, materialization metadata) use the ``duckdb`` resource's file
through :func:`duckdb_connection`, opened the same way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource

from linkpipe.lib.retention import DEFAULT_KEEP_CRAWLS
from linkpipe.lib.storage import open_db
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


def resources_for(settings: LinkpipeSettings) -> dict[str, object]:
    """Every resource the assets, checks and sensors use: ``settings`` and ``duckdb`` (the
    same database file)."""
    return {"settings": settings, "duckdb": DuckDBResource(database=settings.db_path)}


@contextmanager
def duckdb_connection(database: DuckDBResource) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the resource's database file, opened as the stages open it
    (:func:`~linkpipe.lib.storage.open_db`: the file attached to the DuckDB instance this
    process keeps, waiting while another process holds it) and let go on leaving the block,
    even when the block fails, so that no lock outlives it. The resource's own
    ``get_connection`` starts a DuckDB instance each time: ~10 ms of CPU more for each use
    (asset metadata and checks: ~24 a 10k refresh in the runner's process)."""
    with open_db(database.database) as con:
        yield con
