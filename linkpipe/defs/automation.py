"""Nightly refresh: a schedule and the automation sensor that carries the graph along.

* ``nightly_refresh`` (a schedule; cron ``LINKPIPE_NIGHTLY_CRON``, default ``0 3 * * *``, in
  the time zone ``LINKPIPE_TIMEZONE``, default ``UTC``) registers today's crawl of the last
  crawled site as a new ``crawls`` partition and runs ``crawl_job`` for it.
* ``refresh_after_crawl`` (an automation condition sensor over every asset) materializes the
  rest: each asset after ``crawl_export`` is eager, so it follows once its inputs of the new
  partition land.

Both are off by default: switch both on in the UI (Automation), with the daemon running.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from zoneinfo import ZoneInfo

import dagster as dg

from linkpipe.defs.jobs import STEP_JOBS
from linkpipe.defs.partitions import CRAWLS
from linkpipe.defs.resources import LinkpipeSettings
from linkpipe.lib.stages.crawl_export import latest_crawler_settings, register_crawl

DEFAULT_NIGHTLY_CRON = "0 3 * * *"
DEFAULT_TIMEZONE = "UTC"
NIGHTLY_CRON = os.environ.get("LINKPIPE_NIGHTLY_CRON", DEFAULT_NIGHTLY_CRON)
TIMEZONE = os.environ.get("LINKPIPE_TIMEZONE", DEFAULT_TIMEZONE)

crawl_job = STEP_JOBS["crawl_job"]


def nightly_crawl_id(when: dt.datetime | None, timezone: str = TIMEZONE) -> str:
    """The crawl id of a nightly run: its date (``YYYY-MM-DD``) in ``timezone``."""
    moment = when or dt.datetime.now(dt.UTC)
    return moment.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d")


@dg.schedule(
    cron_schedule=NIGHTLY_CRON,
    execution_timezone=TIMEZONE,
    target=crawl_job,
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Registers today's crawl of the last crawled site and runs crawl_job for it; "
    "switch on refresh_after_crawl too, so that the rest of the graph follows.",
)
def nightly_refresh(
    context: dg.ScheduleEvaluationContext, settings: LinkpipeSettings
) -> dg.RunRequest | dg.SkipReason:
    """Register today's crawl (same start URL and settings as the last crawler crawl) as a
    partition and request ``crawl_job`` for it."""
    latest = latest_crawler_settings(settings.db_path)
    if latest is None:
        return dg.SkipReason("no crawl registered yet: run `linkpipe run URL` once")
    crawl_id = nightly_crawl_id(context.scheduled_execution_time)
    if context.instance.has_dynamic_partition(CRAWLS, crawl_id):
        return dg.SkipReason(f"crawl {crawl_id} already exists")
    register_crawl(
        settings.db_path,
        crawl_id,
        latest["start_url"],
        "crawler",
        "",
        json.loads(latest["config_json"] or "{}"),
    )
    context.instance.add_dynamic_partitions(CRAWLS, [crawl_id])
    return dg.RunRequest(run_key=crawl_id, partition_key=crawl_id)


refresh_after_crawl = dg.AutomationConditionSensorDefinition(
    "refresh_after_crawl",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Materializes each asset of a new crawl once its inputs have landed (every "
    "asset after crawl_export is eager): the rest of the graph after nightly_refresh.",
)
