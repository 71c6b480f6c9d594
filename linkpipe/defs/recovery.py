"""Recovery from runs whose process died (``kill -9``, out of memory, a lost terminal).

Every run the runner starts carries the tag :data:`OWNER_TAG` (``host:pid:start``, see
:mod:`linkpipe.lib.run_status`). Before a new run, :func:`release_dead_runs` finds the runs of
the instance that are not finished but whose process is gone: it frees the writer-pool slots
they still hold (otherwise every later run waits for them for ever) and marks them failed, and
it marks their crawls ``killed`` in ``crawl_runs``. A run that stops or fails releases its
own unfinished Dagster runs the same way (:func:`release_own_runs`): one stopped while Dagster
set a run up leaves it unfinished otherwise.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from dagster._core.storage.dagster_run import NOT_FINISHED_STATUSES

from linkpipe.lib.run_status import mark_dead_runs, owner_alive, process_owner
from linkpipe.lib.storage import open_db

OWNER_TAG = "linkpipe/owner"


def release_dead_runs(instance: dg.DagsterInstance, db_path: str | Path) -> list[str]:
    """Free the pool slots and fail the Dagster runs of dead processes, and record their
    crawls as killed; return the ids of the Dagster runs released."""
    released = _release(instance, None)
    with open_db(db_path) as con:
        mark_dead_runs(con)
    return released


def release_own_runs(instance: dg.DagsterInstance) -> list[str]:
    """Free the pool slots and fail the unfinished Dagster runs of this process and of dead
    ones (its killed shard workers'): the run is over, stopped or failed; their ids."""
    return _release(instance, process_owner())


def _release(instance: dg.DagsterInstance, own: str | None) -> list[str]:
    """Release the unfinished runs of dead owners and of ``own``; their ids."""
    released = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=NOT_FINISHED_STATUSES)):
        owner = run.tags.get(OWNER_TAG)
        if owner is None or (owner != own and owner_alive(owner)):
            continue
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        why = "the run was stopped or failed" if owner == own else "the process running it died"
        instance.report_run_failed(run, message=why)
        released.append(run.run_id)
    return released
