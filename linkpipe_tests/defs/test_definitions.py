"""The Dagster definitions that `dagster dev` loads: assets in groups with kinds, partitions,
pool, checks, a job per step, the nightly schedule and the automation sensor; and what a run
records: runs named after the jobs, check evaluations, table schemas and distributions."""

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from linkpipe.definitions import defs
from linkpipe.defs.automation import nightly_refresh
from linkpipe.defs.resources import LinkpipeSettings
from linkpipe.defs.runner import instance_for, run_graph
from linkpipe.lib.stages.crawl_export import register_crawl

EXPECTED = {
    "crawl_export",
    "indexable_pages",
    "link_graph",
    "page_summaries",
    "page_embeddings",
    "ann_index",
    "site_models",
    "candidate_pairs",
    "link_opportunities",
    "topic_clusters",
    "published_snapshot",
}


def test_asset_graph_and_partitions():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert keys == EXPECTED
    page_level = {"page_summaries", "page_embeddings", "candidate_pairs"}
    for key in keys:
        node = graph.get(dg.AssetKey(key))
        partitions = node.partitions_def
        if key in page_level:
            assert isinstance(partitions, dg.MultiPartitionsDefinition)
            assert {d.name for d in partitions.partitions_defs} == {"crawl", "shard"}
        else:
            assert (
                isinstance(partitions, dg.DynamicPartitionsDefinition)
                and partitions.name == "crawls"
            )
        # Site-level assets share the writer pool; shards run in parallel processes instead.
        assert node.pools == (set() if key in page_level else {"linkpipe_duckdb_writer"})
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("link_opportunities")).parent_keys}
    assert parents == {"candidate_pairs", "link_graph"}
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("candidate_pairs")).parent_keys}
    assert parents == {"page_embeddings", "ann_index", "site_models", "link_graph"}
    parents = {k.to_user_string() for k in graph.get(dg.AssetKey("site_models")).parent_keys}
    assert parents == {"page_summaries", "link_graph"}


GROUPS = {
    "crawl": {"crawl_export", "indexable_pages", "link_graph"},
    "content": {"page_summaries", "site_models"},
    "vectors": {"page_embeddings", "ann_index", "topic_clusters"},
    "suggestions": {"candidate_pairs", "link_opportunities"},
    "publish": {"published_snapshot"},
}
CHECKS = {
    "crawl_export": {"crawl_urls_unique"},
    "indexable_pages": {"indexable_urls_unique"},
    "page_embeddings": {"vectors_match_pages"},
    "ann_index": {"faiss_rows_match_vectors"},
    "link_opportunities": {"no_self_or_linked_pairs", "anchors_inside_sentences"},
}
JOBS = {
    "crawl_job": {"crawl_export", "indexable_pages", "link_graph"},
    "content_job": {"page_summaries", "page_embeddings"},
    "index_job": {"ann_index", "site_models"},
    "candidates_job": {"candidate_pairs"},
    "scoring_job": {"link_opportunities", "topic_clusters", "published_snapshot"},
}


def test_groups_kinds_descriptions_and_blocking_checks():
    graph = defs.resolve_asset_graph()
    for group, keys in GROUPS.items():
        for key in keys:
            node = graph.get(dg.AssetKey(key))
            assert node.group_name == group, key
            assert "duckdb" in node.kinds and node.description, key
    assert "faiss" in graph.get(dg.AssetKey("ann_index")).kinds
    assert "scrapy" in graph.get(dg.AssetKey("crawl_export")).kinds
    for key in EXPECTED:
        checks = graph.get_check_keys_for_assets({dg.AssetKey(key)})
        assert {c.name for c in checks} == CHECKS.get(key, set()), key
        for check_key in checks:
            spec = graph.get(check_key)
            assert spec.blocking and spec.description, check_key
            # partitioned like the asset: one evaluation per crawl (or crawl x shard)
            assert spec.partitions_def == graph.get(dg.AssetKey(key)).partitions_def


def test_a_job_per_step_and_the_nightly_automation():
    for name, keys in JOBS.items():
        job = defs.resolve_job_def(name)
        assert {k.to_user_string() for k in job.asset_layer.selected_asset_keys} == keys
        checks = {c.name for c in job.asset_layer.asset_graph.asset_check_keys}
        assert checks == set().union(*(CHECKS.get(k, set()) for k in keys)), name
    schedule = defs.resolve_schedule_def("nightly_refresh")
    assert schedule.job_name == "crawl_job"
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("0 3 * * *", "UTC")
    assert schedule.default_status == dg.DefaultScheduleStatus.STOPPED
    sensor = defs.resolve_sensor_def("refresh_after_crawl")
    assert sensor.default_status == dg.DefaultSensorStatus.STOPPED
    # it carries every asset after crawl_export (all eager), so no default sensor is added
    graph = defs.resolve_asset_graph()
    targeted = sensor.asset_selection.resolve(graph)
    eager = {k for k in graph.get_all_asset_keys() if graph.get(k).automation_condition}
    assert eager == {dg.AssetKey(k) for k in EXPECTED - {"crawl_export"}} and eager <= targeted
    sensors = defs.get_repository_def().sensor_defs
    assert [s.name for s in sensors] == ["refresh_after_crawl"]


def test_cron_and_time_zone_come_from_the_environment():
    env = {**os.environ, "LINKPIPE_NIGHTLY_CRON": "30 1 * * 1-5"}
    env["LINKPIPE_TIMEZONE"] = "Europe/Paris"
    code = (
        "from linkpipe.definitions import defs; "
        "s = defs.resolve_schedule_def('nightly_refresh'); "
        "print(s.cron_schedule, s.execution_timezone)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.stdout.strip() == "30 1 * * 1-5 Europe/Paris", out.stderr


def test_nightly_schedule_registers_the_crawl_of_its_day(tmp_path):
    db = tmp_path / "n.duckdb"
    # a schedule's context needs a stored instance (not an ephemeral one)
    (tmp_path / "home").mkdir()
    instance = dg.DagsterInstance.local_temp(tempdir=str(tmp_path / "home"))
    settings = LinkpipeSettings(db_path=str(db))
    when = dt.datetime(2026, 11, 29, 3, 0, tzinfo=dt.UTC)

    def tick() -> dg.RunRequest | dg.SkipReason:
        context = dg.build_schedule_context(
            instance=instance, resources={"settings": settings}, scheduled_execution_time=when
        )
        return nightly_refresh(context)

    assert isinstance(tick(), dg.SkipReason)  # nothing crawled yet
    register_crawl(db, "first", "http://s.test/", "crawler", "", {"max_pages": 7})
    request = tick()
    assert isinstance(request, dg.RunRequest)
    assert (request.partition_key, request.run_key) == ("2026-11-29", "2026-11-29")
    assert instance.has_dynamic_partition("crawls", "2026-11-29")
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(
        "SELECT start_url, config_json FROM crawls WHERE crawl_id = ?", ["2026-11-29"]
    ).fetchall() == [("http://s.test/", '{"max_pages": 7}')]
    con.close()
    skipped = tick()  # the same night again: the crawl exists
    assert isinstance(skipped, dg.SkipReason) and "2026-11-29" in skipped.skip_message


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory, demo_site, fake_model):
    """The whole graph on the demo site, run as the CLI runs it (two shard workers)."""
    db = tmp_path_factory.mktemp("defs") / "linkpipe.duckdb"
    register_crawl(db, "c1", demo_site.base_url + "/", "crawler", "", {"max_pages": 300})
    run_graph(db, "c1", fake_model, workers=2)
    return instance_for(db), db


def _latest(instance: dg.DagsterInstance, key: str) -> dict:
    event = instance.get_latest_materialization_event(dg.AssetKey(key))
    return event.asset_materialization.metadata


def test_runs_are_named_after_their_step_jobs_and_run_every_check(demo_run):
    instance, _ = demo_run
    runs = instance.get_runs()
    assert {r.job_name for r in runs} == set(JOBS)
    assert len(runs) == 1 + 4 + 1 + 4 + 1  # site steps once, page steps once per shard
    evaluations = []
    for run in runs:
        records = instance.get_records_for_run(
            run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION
        ).records
        evaluations += [r.event_log_entry.dagster_event.event_specific_data for r in records]
    names = sorted(e.check_name for e in evaluations)
    assert names == sorted(
        ["crawl_urls_unique", "indexable_urls_unique", "faiss_rows_match_vectors"]
        + ["no_self_or_linked_pairs", "anchors_inside_sentences"]
        + ["vectors_match_pages"] * 4
    )
    assert all(e.passed for e in evaluations), [e.description for e in evaluations]


def test_materializations_carry_table_schemas_and_distributions(demo_run):
    instance, db = demo_run
    meta = _latest(instance, "crawl_export")
    assert meta["dagster/table_name"].value == "crawl_pages"
    columns = {c.name: c for c in meta["dagster/column_schema"].schema.columns}
    assert columns["url"].type == "VARCHAR" and not columns["url"].constraints.nullable
    assert columns["status"].type == "INTEGER" and columns["status"].constraints.nullable
    links = meta["column_schema_crawl_links"].schema.columns
    assert [c.name for c in links][:3] == ["crawl_id", "source_url", "target_url"]
    con = duckdb.connect(str(db), read_only=True)
    scores = [
        r[0]
        for r in con.execute(
            "SELECT score FROM link_opportunities WHERE crawl_id = 'c1'"
        ).fetchall()
    ]
    con.close()
    meta = _latest(instance, "link_opportunities")
    assert meta["score_mean"].value == pytest.approx(sum(scores) / len(scores))
    spec = meta["score_histogram_vega_lite"].value
    assert spec["mark"] == "bar" and sum(v["count"] for v in spec["data"]["values"]) == len(scores)
    bins = spec["data"]["values"]
    assert bins[0]["start"] == pytest.approx(min(scores)) and bins[-1]["end"] >= max(scores)
    markdown = meta["score_histogram"].value
    assert markdown.startswith(f"{len(scores)} suggestions: mean ")
    assert "| score | suggestions | |" in markdown and "█" in markdown
    meta = _latest(instance, "candidate_pairs")
    assert {"semantic_sim_histogram", "semantic_sim_histogram_vega_lite"} <= set(meta)
    assert "| semantic_sim | pairs | |" in meta["semantic_sim_histogram"].value
    assert -1.0 <= meta["semantic_sim_median"].value <= 1.0
    assert json.loads(json.dumps(meta["semantic_sim_histogram_vega_lite"].value))


def test_indexable_pages_shows_the_thresholds_measured_on_the_site(demo_run):
    instance, db = demo_run
    meta = _latest(instance, "indexable_pages")
    con = duckdb.connect(str(db), read_only=True)
    stored = con.execute(
        "SELECT rule, page_type, threshold, mode FROM indexability_thresholds "
        "WHERE crawl_id = 'c1' ORDER BY rule, page_type NULLS FIRST"
    ).fetchall()
    con.close()
    # the demo's articles are long: every auto threshold stays at the fixed rule's value
    assert stored == [
        ("listing", None, 0.5, "auto"),
        ("near_duplicate", None, 3.0, "auto"),
        ("thin", None, 60.0, "auto"),
        ("thin", "blog", 60.0, "auto"),
        ("thin", "glossary", 60.0, "auto"),
        ("thin", "guide", 60.0, "auto"),
    ]
    assert meta["thin_threshold_words"].value == 60
    assert meta["near_duplicate_threshold_bits"].value == 3
    rules = [t["rule"] for t in meta["thresholds"].value]
    assert rules == ["listing", "thin", "thin", "thin", "thin", "near_duplicate"]
    table = meta["thresholds_table"].value
    assert "| thin | glossary | 60 | auto | 12 | cap 60, below 0.5 x median " in table
    assert meta["rows_indexability_thresholds"].value == 6


def test_dagster_validates_the_workspace():
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        ["dagster", "definitions", "validate", "-w", "workspace.yaml"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All code locations passed validation" in out.stdout + out.stderr
