"""Dagster entry point: `dagster dev` (via workspace.yaml) loads ``defs`` from here."""

from __future__ import annotations

import dagster as dg

from linkpipe.defs.assets import ALL_ASSETS
from linkpipe.defs.automation import nightly_refresh, refresh_after_crawl
from linkpipe.defs.checks import ALL_CHECKS
from linkpipe.defs.jobs import STEP_JOBS
from linkpipe.defs.resources import resources_for, settings_from_env

defs = dg.Definitions(
    assets=ALL_ASSETS,
    asset_checks=ALL_CHECKS,
    jobs=list(STEP_JOBS.values()),
    schedules=[nightly_refresh],
    sensors=[refresh_after_crawl],
    resources=resources_for(settings_from_env()),
)
