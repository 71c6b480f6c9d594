"""Two ways to run linkpipe's asset graph for one crawl under a Meter; used by bench_pipeline.py
(not a script of its own).

* ``graph``: ``linkpipe.defs.runner.run_graph`` (Dagster, as `linkpipe run` does), usage
  attributed to its steps through the ``on_step`` callback;
* ``direct``: each asset's ``linkpipe.lib.stages.<asset>.materialize_<asset>`` called in
  dependency order (every shard of a page-level asset in turn), usage per asset. The assets and
  their order come from ``linkpipe.defs.assets.ALL_ASSETS``, so assets added there are measured
  without changing this file; arguments are passed by parameter name.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_meter import Meter


@dataclass(frozen=True)
class DirectStage:
    """One asset as a plain function call."""

    name: str
    page_level: bool  # partitioned by crawl x shard
    func: Callable[..., Any]


def _publish(db_path: str | Path, crawl_id: str) -> None:
    from linkpipe.lib.retention import publish_copy

    publish_copy(db_path, refreshed=crawl_id)


def _stage_function(name: str) -> Callable[..., Any]:
    """``materialize_<name>`` of ``linkpipe.lib.stages.<name>`` (the snapshot: publish_copy)."""
    try:
        module = importlib.import_module(f"linkpipe.lib.stages.{name}")
        func: Callable[..., Any] = getattr(module, f"materialize_{name}")
        return func
    except (ModuleNotFoundError, AttributeError):
        if name == "published_snapshot":
            return _publish
        raise SystemExit(f"no stage function for asset {name!r} in linkpipe.lib.stages") from None


def direct_stages() -> list[DirectStage]:
    """Every asset of the graph, upstream first (a stable topological order of ALL_ASSETS)."""
    import dagster as dg

    from linkpipe.defs.assets import ALL_ASSETS

    pending = list(ALL_ASSETS)
    done: set[Any] = set()
    ordered: list[DirectStage] = []
    while pending:
        ready = next(a for a in pending if a.dependency_keys <= done | {a.key})
        pending.remove(ready)
        done.add(ready.key)
        name = ready.key.path[-1]
        page_level = isinstance(ready.partitions_def, dg.MultiPartitionsDefinition)
        ordered.append(DirectStage(name, page_level, _stage_function(name)))
    return ordered


def _call(func: Callable[..., Any], values: dict[str, Any]) -> Any:
    """Call ``func`` with the values its parameters name; a required unknown one is an error."""
    kwargs = {}
    for param in inspect.signature(func).parameters.values():
        if param.name in values:
            kwargs[param.name] = values[param.name]
        elif param.default is inspect.Parameter.empty:
            raise SystemExit(f"{func.__qualname__} needs {param.name!r}, which the bench lacks")
    return func(**kwargs)


def _rows_of(result: Any) -> dict[str, int]:
    rows = getattr(result, "rows", None)
    return {str(k): int(v) for k, v in rows.items()} if isinstance(rows, dict) else {}


def _models_of(meta: Any) -> dict[str, float]:
    """The CPU s of each model a stage's metadata reports (``<model>_cpu_s``)."""
    from linkpipe.lib.model_cpu import MODELS

    meta = meta if hasattr(meta, "get") else {}
    return {m: float(getattr(v, "value", v)) for m in MODELS if (v := meta.get(f"{m}_cpu_s"))}


def run_direct(db: Path, crawl_id: str, model: str, meter: Meter) -> None:
    """Every stage function in order, each measured (all shards of a page-level one together).
    Shards run one after another, each with the library threads a worker of ``linkpipe run``
    has (see ``linkpipe.lib.threads``), so their CPU is what the product's workers spend."""
    from linkpipe.defs.shard_pool import default_workers
    from linkpipe.lib.hashing import DEFAULT_SHARDS
    from linkpipe.lib.threads import threads_per_worker

    worker_threads = threads_per_worker(default_workers(DEFAULT_SHARDS))

    values: dict[str, Any] = {
        "db_path": db,
        "crawl_id": crawl_id,
        "model": model,
        "n_shards": DEFAULT_SHARDS,
    }
    for stage in direct_stages():
        with meter.measure(stage.name) as measured:
            for shard in range(DEFAULT_SHARDS) if stage.page_level else [None]:
                threads = worker_threads if stage.page_level else None
                result = _call_with_threads(stage.func, {**values, "shard": shard}, threads)
                for table, n in _rows_of(result).items():
                    measured.rows[table] = measured.rows.get(table, 0) + n
                for name, cpu in _models_of(getattr(result, "meta", None)).items():
                    measured.models[name] = measured.models.get(name, 0.0) + cpu


def _call_with_threads(
    func: Callable[..., Any], values: dict[str, Any], threads: int | None
) -> Any:
    """:func:`_call` with at most ``threads`` library threads (None: the process's own)."""
    from linkpipe.lib.threads import limited_threads

    if threads is None:
        return _call(func, values)
    with limited_threads(threads):
        return _call(func, values)


def run_dagster(db: Path, crawl_id: str, model: str, meter: Meter) -> None:
    """``run_graph`` as the CLI runs it; usage between ``on_step`` callbacks goes to the step."""
    from linkpipe.defs.runner import run_graph

    run_graph(db, crawl_id, model, on_step=meter.switch)
    meter.stop()
    models = graph_models(db, crawl_id)
    for stage in meter.stages:
        stage.models = models.get(stage.stage, {})


def graph_models(db: Path, crawl_id: str) -> dict[str, dict[str, float]]:
    """The model CPU of each step of a graph run of ``crawl_id``: the metadata of the latest
    materialization of each of its assets' partitions, summed by step label."""
    import dagster as dg

    from linkpipe.defs.partitions import page_partitions
    from linkpipe.defs.runner import graph_steps, instance_for

    instance = instance_for(db)
    out: dict[str, dict[str, float]] = {}
    for label, assets, by_shard in graph_steps(("all",)):
        keys = [crawl_id]
        if by_shard:
            shards = page_partitions.get_partition_keys(dynamic_partitions_store=instance)
            keys = [k for k in shards if k.keys_by_dimension["crawl"] == crawl_id]
        for key in (asset.key for asset in assets):
            found = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=key, asset_partitions=[str(k) for k in keys]),
                limit=len(keys) * 4,
            ).records
            latest = {r.partition_key: r.asset_materialization for r in reversed(found)}
            for materialization in latest.values():
                for name, cpu in _models_of(materialization and materialization.metadata).items():
                    step = out.setdefault(label, {})
                    step[name] = step.get(name, 0.0) + cpu
    return out


RUNNERS: dict[str, Callable[[Path, str, str, Meter], None]] = {
    "direct": run_direct,
    "graph": run_dagster,
}
