"""Run the whole asset graph for one crawl partition (used by the CLI and tests).

Site-level and page-level assets have different partition definitions, so one run cannot hold
them all: the graph runs as five steps (site, shards, index, shards, site), each a Dagster run
recorded in the instance under DAGSTER_HOME, so the UI shows the same materializations. Site
steps run in this process; the shards of a page step run in parallel worker processes
(``shard_pool``), one per core, kept for every page step of the run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import dagster as dg

from linkpipe.defs import assets as A
from linkpipe.defs.checks import failed_check_message
from linkpipe.defs.jobs import materialize_step
from linkpipe.defs.partitions import CRAWLS
from linkpipe.defs.recovery import OWNER_TAG, release_dead_runs, release_own_runs
from linkpipe.defs.resources import LinkpipeSettings, resources_for
from linkpipe.defs.shard_pool import ShardPool, default_workers
from linkpipe.lib import stopping
from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.heap import long_lived_heap, return_free_memory
from linkpipe.lib.retention import DEFAULT_KEEP_CRAWLS
from linkpipe.lib.run_status import (
    finish_run_in,
    process_owner,
    set_step,
    start_run,
)
from linkpipe.lib.storage import fetch_dicts, keep_open, open_db
from linkpipe.lib.threads import limited_threads, threads_per_worker

DAGSTER_YAML = """\
# written by linkpipe (rewritten when linkpipe's defaults change; remove this line to keep edits)
telemetry:
  enabled: false
python_logs:
  python_log_level: WARNING
concurrency:
  pools:
    default_limit: 1
compute_logs:
  module: linkpipe.defs.compute_logs
  class: MirroredComputeLogManager
"""


# Dagster's console log; the CLI prints progress and a failed step as one line of its own.
LOG_LEVEL = os.environ.get("LINKPIPE_DAGSTER_LOG_LEVEL", "CRITICAL")


class RunFailed(RuntimeError):
    """A step of the graph failed; the message names the asset and the error."""


def dagster_home_for(db_path: str | Path) -> Path:
    """The DAGSTER_HOME kept beside a database file (created with its dagster.yaml)."""
    home = Path(db_path).resolve().parent / "dagster_home"
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    current = config.read_text(encoding="utf-8") if config.exists() else None
    if current is None or (current.startswith("# written by linkpipe") and current != DAGSTER_YAML):
        config.write_text(DAGSTER_YAML, encoding="utf-8")
    return home


def instance_for(db_path: str | Path) -> dg.DagsterInstance:
    """The persistent Dagster instance beside the database."""
    os.environ["DAGSTER_HOME"] = str(dagster_home_for(db_path))
    return dg.DagsterInstance.get()


def _materialize(
    assets: Sequence[dg.AssetsDefinition],
    partition_key: str,
    instance: dg.DagsterInstance,
    settings: LinkpipeSettings,
) -> None:
    result = materialize_step(  # dg.materialize, the run named after the step's job
        assets,
        partition_key=partition_key,
        instance=instance,
        resources=resources_for(settings),
        run_config={"loggers": {"console": {"config": {"log_level": LOG_LEVEL}}}},
        tags={OWNER_TAG: process_owner()},
    )
    return_free_memory(step_done=True)  # what the step freed, not held into the next step
    stopping.raise_if_requested()  # a stop Dagster swallowed, or one that failed a step
    if not result.success:
        if failed_check := failed_check_message(result.all_events):
            raise RunFailed(failed_check)
        for event in result.all_events:
            if event.is_step_failure:
                err = event.step_failure_data.error
                message = err.cause.message if err and err.cause else (err.message if err else "")
                raise RunFailed(f"{event.step_key} failed: {message.strip().splitlines()[-1]}")
        raise RunFailed("the run failed")


Step = tuple[str, list[dg.AssetsDefinition], bool]
# Estimated CPU of the page steps (docs/benchmarks.md: the 1k site, and the 10k site's 1 %
# edited refresh, whose 99 edited pages sent 3,769 of 9,626 sources through search and gate):
CHANGED_PAGE_CPU_S = 0.15  # a new or changed page: extraction, embedding, its anchors
REACHED_SOURCES = 40  # sources a changed page reaches (it is among their hits or neighbours)
SOURCE_CPU_S = 0.008  # a reached source: its search, gate, rows (the others are copied)
PARALLEL_MIN_CPU_S = 60.0  # below this, one worker: more would spend more on loading than saved


def graph_steps(stages: tuple[str, ...]) -> list[Step]:
    """(label, assets, by shard) of each step that has assets among ``stages``."""
    steps: list[Step] = [
        ("crawl and link graph", A.SITE_ASSETS, False),
        ("summaries and embeddings", A.PAGE_ASSETS_1, True),
        ("nearest-neighbour index and site models", A.INDEX_ASSETS, False),
        ("candidates and anchors", A.PAGE_ASSETS_2, True),
        ("scoring and clusters", A.FINAL_ASSETS, False),
    ]
    if "all" not in stages:
        steps = [(s, [a for a in assets if a.key.path[-1] in stages], b) for s, assets, b in steps]
    return [step for step in steps if step[1]]


def run_graph(
    db_path: str | Path,
    crawl_id: str,
    model: str,
    stages: tuple[str, ...] = ("all",),
    instance: dg.DagsterInstance | None = None,
    on_step: Callable[[str], None] | None = None,
    workers: int | None = None,
    keep_crawls: int = DEFAULT_KEEP_CRAWLS,
) -> None:
    """Materialize every asset of the graph for ``crawl_id``; ``on_step(label)`` before each step.

    ``stages`` names the assets to run (``"all"``: every one); ``workers`` is the number of
    processes for the shards of a page step (default: :func:`run_workers`);
    ``keep_crawls`` the crawls of the site the published copy holds (default 7).

    The run is recorded in ``crawl_runs``: running with this process as owner, then failed or
    interrupted (with the error) when a step fails or the run is stopped, ``partial`` when the
    chosen stages end before the published snapshot, which marks the crawl complete. Runs of
    dead processes are released first (:func:`recovery.release_dead_runs`).
    """
    instance = instance or instance_for(db_path)
    release_dead_runs(instance, db_path)
    if not instance.has_dynamic_partition(CRAWLS, crawl_id):
        instance.add_dynamic_partitions(CRAWLS, [crawl_id])
    settings = LinkpipeSettings(db_path=str(db_path), model=model, keep_crawls=keep_crawls)
    steps = graph_steps(stages)
    if not steps:
        return
    start_run(db_path, crawl_id, steps[0][0])
    try:
        last_page_step = max((i for i, step in enumerate(steps) if step[2]), default=-1)
        with long_lived_heap(), ShardPool(materialize_shard, workers or 0) as pool:
            for i, (label, assets, by_shard) in enumerate(steps):
                stopping.raise_if_requested()
                set_step(db_path, crawl_id, label)
                if on_step:
                    on_step(label)
                small = by_shard and small_step(db_path, crawl_id, _site_wide(assets))
                if by_shard and not workers:  # decided once the crawl is stored
                    _size_pool(pool, run_workers(db_path, crawl_id, small=small))
                _run_step(assets, (by_shard, small), crawl_id, instance, settings, pool)
                if i == last_page_step:  # the workers' models and site context go
                    pool.close(finished=True)
    except BaseException as exc:
        with contextlib.suppress(Exception):  # else the next run releases them (dead owner)
            release_own_runs(instance)
        if isinstance(exc, Exception):
            finish_run_in(db_path, crawl_id, "failed", str(exc) or type(exc).__name__)
        else:
            finish_run_in(db_path, crawl_id, "interrupted", f"stopped ({type(exc).__name__})")
        raise
    if not any(a.key.path[-1] == "published_snapshot" for _, assets, _ in steps for a in assets):
        finish_run_in(db_path, crawl_id, "partial")


def run_workers(
    db_path: str | Path, crawl_id: str, site_wide: bool = True, small: bool | None = None
) -> tuple[int, int]:
    """(worker processes, library threads in each) for a page step of a run: one worker per
    core (``LINKPIPE_WORKERS`` when set) with ``cores // workers`` threads, or one worker with
    one thread when the crawl brings the step too little work to pay for more. Each worker
    loads the libraries and models its step needs (PyTorch and the embedding model for
    summaries and embeddings, the site context and spaCy for candidates: a few CPU-s each),
    and extra library threads spin more than they save on small work, so a refresh that
    changed a few pages embeds them in one thread of one process. The estimate is
    :data:`CHANGED_PAGE_CPU_S` per new or changed page plus, for a ``site_wide`` step (the
    candidates: the sources a change reaches are searched and gated, the others copied),
    :data:`SOURCE_CPU_S` for each of :data:`REACHED_SOURCES` sources per changed page (at
    most every page). A second worker loads its own spaCy, site context and index (the 10k
    site's 1 % edited refresh: the candidate step 38.3 / 39.0 CPU-s in two workers, 30.8 /
    32.2 in one, 3-4 s more wall). ``small``: :func:`small_step`'s answer when the caller has
    it already."""
    configured = default_workers(DEFAULT_SHARDS)
    if configured == 1 or os.environ.get("LINKPIPE_WORKERS", "").isdigit():
        return configured, threads_per_worker(configured)
    if small_step(db_path, crawl_id, site_wide) if small is None else small:
        return 1, 1
    return configured, threads_per_worker(configured)


def small_step(db_path: str | Path, crawl_id: str, site_wide: bool = True) -> bool:
    """Whether a page step's estimated CPU (see :func:`run_workers`) is below
    :data:`PARALLEL_MIN_CPU_S`: then one worker does it, and it keeps the database file
    attached between its opens (no other process of the run needs it, and one that waits
    for it waits no longer than the step's few seconds)."""
    with open_db(db_path) as con:
        work = fetch_dicts(con, "read/count_changed_pages", [crawl_id])[0]
    changed, pages = int(work["changed"] or 0), int(work["pages"] or 0)
    site = min(pages, changed * REACHED_SOURCES) * SOURCE_CPU_S if site_wide else 0.0
    return changed * CHANGED_PAGE_CPU_S + site < PARALLEL_MIN_CPU_S


def _site_wide(assets: Sequence[dg.AssetsDefinition]) -> bool:
    """Whether a page step recomputes every source once any page changed (candidates)."""
    return any(a.key.path[-1] == "candidate_pairs" for a in assets)


def _size_pool(pool: ShardPool, wanted: tuple[int, int]) -> None:
    """Give a page step the (workers, threads) it wants, never fewer workers than an earlier
    step started: those hold what they loaded, and idle they would spend nothing."""
    if wanted[0] > pool.workers:
        pool.workers, pool.threads = wanted


def _run_step(
    assets: list[dg.AssetsDefinition],
    shards: tuple[bool, bool],
    crawl_id: str,
    instance: dg.DagsterInstance,
    settings: LinkpipeSettings,
    pool: ShardPool,
) -> None:
    """One step: a site-level run here, or the shards of a page-level step (``shards``: by
    shard, and a small step's: see :func:`small_step`), in the run's worker processes when it
    has more than one."""
    by_shard, small = shards
    if not by_shard:
        _materialize(assets, crawl_id, instance, settings)
    elif pool.workers > 1:
        names = [a.key.path[-1] for a in assets]
        pool.run(names, _shard_keys(crawl_id), settings.db_path, settings.model)
    else:  # a small step keeps the file attached between its opens (keep_open)
        kept = keep_open(settings.db_path) if small else contextlib.nullcontext()
        with limited_threads(pool.threads or threads_per_worker(1)), kept:
            for key in _shard_keys(crawl_id):
                _materialize(assets, dg.MultiPartitionKey(key), instance, settings)


def materialize_shard(
    asset_names: list[str], key: dict[str, str], db_path: str, model: str
) -> None:
    """Worker job: one Dagster run of the named page-level assets for one crawl x shard key."""
    assets = [a for a in A.ALL_ASSETS if a.key.path[-1] in asset_names]
    settings = LinkpipeSettings(db_path=db_path, model=model)
    _materialize(assets, dg.MultiPartitionKey(key), _worker_instance(), settings)


_INSTANCES: dict[str, dg.DagsterInstance] = {}


def _worker_instance() -> dg.DagsterInstance:
    """The Dagster instance of this worker's ``DAGSTER_HOME``, made at its first shard and
    kept for the others (making one reads dagster.yaml and opens its storages: ~0.15 CPU-s,
    once per shard before)."""
    home = os.environ.get("DAGSTER_HOME", "")
    if home not in _INSTANCES:
        _INSTANCES[home] = dg.DagsterInstance.get()
    return _INSTANCES[home]


def _shard_keys(crawl_id: str) -> list[dict[str, str]]:
    return [{"crawl": crawl_id, "shard": str(s)} for s in range(DEFAULT_SHARDS)]
