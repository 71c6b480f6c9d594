"""One named job per step of the graph, and the runs of the runner named after them.

Site-level and page-level assets have different partitions, so the graph runs in five steps
(see ``runner.graph_steps``); each step is a job here, with the checks of its assets. The runner's
runs carry the step's job name, so the UI lists them under ``crawl_job`` ... ``scoring_job``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import dagster as dg

from linkpipe.defs import assets as A
from linkpipe.defs.checks import ALL_CHECKS

# name -> (assets, description), in the order the steps run
STEPS: dict[str, tuple[list[dg.AssetsDefinition], str]] = {
    "crawl_job": (A.SITE_ASSETS, "Step 1: crawl export, indexable pages and link graph."),
    "content_job": (A.PAGE_ASSETS_1, "Step 2, per shard: summaries and embeddings."),
    "index_job": (A.INDEX_ASSETS, "Step 3: nearest-neighbour index and site models."),
    "candidates_job": (A.PAGE_ASSETS_2, "Step 4, per shard: candidate pairs and anchors."),
    "scoring_job": (A.FINAL_ASSETS, "Step 5: scoring, clusters and the published copy."),
}


def _job(
    name: str, assets: Sequence[dg.AssetsDefinition], description: str = ""
) -> dg.UnresolvedAssetJobDefinition:
    """The asset job of ``assets`` (their checks included), named ``name``."""
    return dg.define_asset_job(name, selection=list(assets), description=description or None)


STEP_JOBS = {name: _job(name, assets, text) for name, (assets, text) in STEPS.items()}


def step_job_name(assets: Sequence[dg.AssetsDefinition]) -> str:
    """The job of the step that ``assets`` belong to."""
    keys = {a.key for a in assets}
    for name, (members, _) in STEPS.items():
        if keys <= {a.key for a in members}:
            return name
    raise ValueError(f"not the assets of one step: {sorted(k.to_user_string() for k in keys)}")


def materialize_step(
    assets: Sequence[dg.AssetsDefinition],
    partition_key: str,
    instance: dg.DagsterInstance,
    resources: Mapping[str, object],
    run_config: Mapping[str, object],
    tags: Mapping[str, str],
) -> dg.ExecuteInProcessResult:
    """Materialize ``assets`` (a step's, or some of them) and run their checks, in this process,
    as one run of the step's job: ``dg.materialize`` with the run named after the job."""
    name = step_job_name(assets)
    defs = dg.Definitions(
        assets=A.ALL_ASSETS,
        asset_checks=ALL_CHECKS,
        jobs=[_job(name, assets)],
        resources=resources,
    )
    return defs.resolve_job_def(name).execute_in_process(
        run_config=dict(run_config),
        instance=instance,
        partition_key=partition_key,
        raise_on_error=False,
        tags=dict(tags),
    )
