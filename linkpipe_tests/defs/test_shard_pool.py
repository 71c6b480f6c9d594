"""The shard pool in fresh processes: results, progress, and failures that never hang."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    import os, sys, time
    from linkpipe.defs.shard_pool import ShardPool
    from linkpipe.lib import progress

    def job(names, key, db, model):
        if key["shard"] == "bad":
            raise ValueError("shard bad is broken")
        if key["shard"] == "die":
            os._exit(7)
        if key["shard"].startswith("frozen"):
            import gc
            progress.report(f"frozen {gc.get_freeze_count() > 0}", 1, 1)
            return
        if key["shard"].startswith("threads"):
            import torch
            from threadpoolctl import threadpool_info
            blas = sorted({p["num_threads"] for p in threadpool_info()})
            progress.report(f"threads torch {torch.get_num_threads()} blas {blas}", 1, 1)
            return
        for i in range(3):
            progress.report("work-" + key["shard"], i + 1, 3)
            time.sleep(0.1)

    if __name__ == "__main__":
        seen = []
        progress.set_reporter(lambda stage, done, total: seen.append((stage, done, total)))
        keys = [{"shard": k} for k in sys.argv[1].split(",")]
        try:
            with ShardPool(job, 2) as pool:
                pool.run([], keys, "db", "model")
        except Exception as exc:
            print("raised", type(exc).__name__, exc, type(exc.__cause__).__name__)
        else:
            print("ok", sorted(set(seen)))
    """
)


def _run(tmp_path: Path, keys: str) -> str:
    script = tmp_path / "pool_job.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), keys], capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_every_shard_runs_and_its_progress_reaches_the_parent(tmp_path):
    out = _run(tmp_path, "0,1,2")
    expected = sorted((f"work-{k}", i, 3) for k in "012" for i in (1, 2, 3))
    assert out == f"ok {expected}"


@pytest.mark.parametrize("attempt", range(5))
def test_a_failing_shard_is_raised_with_its_traceback_and_never_hangs(tmp_path, attempt):
    # Before the pool had a pipe per worker this hung about one run in ten (issue 12).
    out = _run(tmp_path, "bad,0,1")
    assert out == "raised ValueError shard bad is broken ShardFailed"


def test_a_worker_that_dies_is_named_with_its_exit_code(tmp_path):
    out = _run(tmp_path, "0,die,1")
    assert out == (
        "raised RuntimeError the worker process of shard {'shard': 'die'} died "
        "(exit code 7) NoneType"
    )


def test_workers_share_the_cores_instead_of_each_library_taking_them_all(tmp_path):
    from linkpipe.lib.threads import threads_per_worker

    out = _run(tmp_path, "threads0,threads1")
    each = threads_per_worker(2)
    assert out == f"ok {[(f'threads torch {each} blas [{each}]', 1, 1)]}"


POOL_SCRIPT = textwrap.dedent(
    """
    import os
    from linkpipe.defs.shard_pool import ShardPool
    from linkpipe.lib import progress

    def job(names, key, db, model):
        if key["shard"] == "bad":
            raise ValueError("broken")
        progress.report(f"{names[0]} {os.getpid()}", 1, 1)

    if __name__ == "__main__":
        seen = []
        progress.set_reporter(lambda stage, done, total: seen.append(stage))
        keys = [{"shard": "0"}, {"shard": "1"}, {"shard": "2"}]
        with ShardPool(job, 2) as pool:
            pool.run(["summaries"], keys, "db", "model")
            pool.run(["candidates"], keys, "db", "model")
            live = [w.process.is_alive() for w in pool.pool]
        pids = {step: {s.split()[1] for s in seen if s.startswith(step)} for step in ("summaries", "candidates")}
        print(len(pids["summaries"]), pids["summaries"] == pids["candidates"], live)
        pool = ShardPool(job, 2)
        try:
            pool.run(["x"], [{"shard": "bad"}], "db", "model")
        except ValueError:
            pass
        try:
            pool.run(["x"], keys, "db", "model")
        except RuntimeError as exc:
            print(exc, pool.closed)
    """
)


def test_workers_serve_every_step_of_a_run_and_a_failure_closes_the_pool(tmp_path):
    script = tmp_path / "pool_steps.py"
    script.write_text(POOL_SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "2 True [True, True]",  # the same two processes ran both steps
        "the shard pool is closed (an earlier step failed) True",
    ]


def test_a_worker_leaves_what_survived_its_first_task_out_of_later_collections(tmp_path):
    # one worker takes both tasks in turn: nothing frozen in the first, its survivors after
    script = tmp_path / "pool_job.py"
    script.write_text(SCRIPT.replace("ShardPool(job, 2)", "ShardPool(job, 1)"))
    done = subprocess.run(
        [sys.executable, str(script), "frozen0,frozen1"], capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok [('frozen False', 1, 1), ('frozen True', 1, 1)]"
