"""Nightly refresh: a sensor that registers a new crawl partition of the last crawled site.

Downstream assets carry an eager automation condition, so once ``crawl_export`` of the new
partition lands, the rest of the graph follows (with the Dagster daemon running).
"""

import datetime as dt
import json

import dagster as dg

from linkpipe.defs.assets import crawl_export
from linkpipe.defs.partitions import CRAWLS, crawl_partitions
from linkpipe.defs.resources import LinkpipeSettings
from linkpipe.lib.stages.crawl_export import latest_crawler_settings, register_crawl


@dg.sensor(minimum_interval_seconds=24 * 3600, default_status=dg.DefaultSensorStatus.STOPPED)
def nightly_recrawl(
    context: dg.SensorEvaluationContext, settings: LinkpipeSettings
) -> dg.SensorResult | dg.SkipReason:
    """Register today's crawl of the last crawled site and request its crawl_export."""
    latest = latest_crawler_settings(settings.db_path)
    if latest is None:
        return dg.SkipReason("no crawl registered yet: run `linkpipe run URL` once")
    crawl_id = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
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
    return dg.SensorResult(
        run_requests=[dg.RunRequest(asset_selection=[crawl_export.key], partition_key=crawl_id)],
        dynamic_partitions_requests=[crawl_partitions.build_add_request([crawl_id])],
    )
