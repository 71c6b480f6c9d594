"""Dagster entry point: `dagster dev` (via workspace.yaml) loads ``defs`` from here."""

from __future__ import annotations

import dagster as dg

from linkpipe.defs.assets import ALL_ASSETS
from linkpipe.defs.automation import nightly_recrawl
from linkpipe.defs.resources import settings_from_env

defs = dg.Definitions(
    assets=ALL_ASSETS,
    sensors=[nightly_recrawl],
    resources={"settings": settings_from_env()},
)
