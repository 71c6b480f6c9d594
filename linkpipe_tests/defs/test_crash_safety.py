"""A run killed (SIGKILL) at any step, or stopped (SIGTERM), leaves a database and a Dagster
instance on which the next run starts and completes; the previous crawl stays the latest and
published one until then, and the dead runs are listed with their status."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import duckdb
import pytest
from dagster._core.storage.dagster_run import NOT_FINISHED_STATUSES

from linkpipe.defs.partitions import WRITER_POOL
from linkpipe.defs.runner import instance_for

STEPS = [
    "crawl and link graph",
    "summaries and embeddings",
    "nearest-neighbour index and site models",
    "candidates and anchors",
    "scoring and clusters",
]
RUN_TIMEOUT_S = 300


def _dispositions(ignored: tuple[int, ...]) -> None:
    """In the child before it runs linkpipe: SIGINT and SIGTERM default, then ``ignored``
    ignored, whatever this process's own are (an ignored signal stays ignored in a child)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN if sig in ignored else signal.SIG_DFL)


def _start(
    db: Path, url: str, crawl_id: str, model: str, ignored: tuple[int, ...] = ()
) -> subprocess.Popen[str]:
    """``linkpipe run`` in a new session, started with the signals ``ignored`` ignored."""
    argv = ["run", url, "--db", str(db), "--model", model, "--crawl-id", crawl_id]
    return subprocess.Popen(
        [sys.executable, "-m", "linkpipe.cli.main", *argv, "--max-pages", "25"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its workers share the session: we can tell when all ended
        env=os.environ | {"LINKPIPE_WORKERS": "2"},  # worker processes even for a small site
        preexec_fn=lambda: _dispositions(ignored),
    )


def _signal_at(proc: subprocess.Popen[str], step: str, sig: int, after_s: float = 0.1) -> float:
    """Send ``sig`` ``after_s`` into ``step`` (a short step on a small site is over within a
    second); return the seconds the process took to exit (its last stderr lines are kept in
    ``proc.stderr_tail`` for the assertion messages)."""
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.strip() == f"> {step}":
            time.sleep(after_s)
            break
    else:
        pytest.fail(f"the run ended before {step!r}")
    sent = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    proc.stderr_tail = err[-3000:]  # type: ignore[attr-defined]
    return time.monotonic() - sent


def _step_when_stopped(proc: subprocess.Popen[str], signalled_in: str) -> str:
    """The last step the run announced before it exited: ``signalled_in`` unless that step
    ended (and the next began) before the signal arrived, as it can on a fast machine."""
    tail: str = proc.stderr_tail  # type: ignore[attr-defined]
    started = [line.strip() for line in tail.splitlines()]
    return next(
        (s[2:] for s in reversed(started) if s[2:] in STEPS and s[:2] == "> "), signalled_in
    )


def _session_processes(sid: int) -> list[str]:
    out = subprocess.run(["pgrep", "-s", str(sid)], capture_output=True, text=True).stdout
    return out.split()


def _wait_session_ends(sid: int, within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while _session_processes(sid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session_processes(sid) == [], "worker processes outlived their run"


def _complete_run(db: Path, url: str, crawl_id: str, model: str) -> None:
    proc = _start(db, url, crawl_id, model)
    _, err = proc.communicate(timeout=RUN_TIMEOUT_S)
    assert proc.returncode == 0, err[-2000:]


def _latest(path: Path) -> str:
    con = duckdb.connect(str(path), read_only=True)
    try:
        row = con.execute("SELECT crawl_id FROM v_latest_crawl").fetchone()
        return row[0] if row else ""
    finally:
        con.close()


def _runs(db: Path) -> dict[str, tuple[str, str | None, str | None]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT crawl_id, status, step, error FROM v_crawl_runs").fetchall()
    finally:
        con.close()
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def _assert_instance_clean(db: Path) -> None:
    instance = instance_for(db)
    unfinished = instance.get_runs(filters=dg.RunsFilter(statuses=NOT_FINISHED_STATUSES))
    assert unfinished == []
    info = instance.event_log_storage.get_concurrency_info(WRITER_POOL)
    assert info.claimed_slots == []


@pytest.mark.slow
def test_killed_and_stopped_runs_leave_a_database_the_next_run_completes(
    tmp_path, demo_site, fake_model
):
    db = tmp_path / "site.duckdb"
    published = tmp_path / "site.published.duckdb"
    url = demo_site.base_url + "/"
    _complete_run(db, url, "base", fake_model)
    for i, step in enumerate(STEPS):
        proc = _start(db, url, f"killed{i}", fake_model)
        _signal_at(proc, step, signal.SIGKILL)
        _wait_session_ends(proc.pid)
        assert _latest(db) == _latest(published) == "base"

    proc = _start(db, url, "stopped", fake_model)
    seconds = _signal_at(proc, "candidates and anchors", signal.SIGTERM, after_s=1.0)
    assert proc.returncode == 130 and seconds < 15
    stopped_in = _step_when_stopped(proc, "candidates and anchors")
    assert stopped_in in STEPS[3:]
    _wait_session_ends(proc.pid)
    assert _latest(db) == _latest(published) == "base"

    runs = _runs(db)
    for i, step in enumerate(STEPS):
        status, at, error = runs[f"killed{i}"]
        assert status == "killed" and at == step
        assert error == f"the process running it died during {step}"
    assert runs["stopped"] == ("interrupted", stopped_in, "stopped (KeyboardInterrupt)")
    assert runs["base"][0] == "complete"

    _complete_run(db, url, "next", fake_model)
    assert _latest(db) == _latest(published) == "next"
    runs = _runs(db)  # unfinished crawls older than a finished one are pruned
    assert {c: r[0] for c, r in runs.items()} == {"base": "complete", "next": "complete"}
    _assert_instance_clean(db)


@pytest.mark.slow
def test_a_run_stopped_at_any_step_stops_and_is_never_published(tmp_path, demo_site, fake_model):
    """SIGTERM a moment into each step: while Dagster sets a run up or records its events it
    handles the signal by setting a flag it then clears, so without linkpipe's own record of
    the request such a run went on to publish its crawl (exit 0). The runs start with SIGINT
    and SIGTERM ignored, as a script's background jobs and some job runners start them:
    Dagster gives SIGTERM SIGINT's handler when a step ends, and the runs from the second
    step on ignored SIGTERM and published."""
    db = tmp_path / "site.duckdb"
    url = demo_site.base_url + "/"
    _complete_run(db, url, "base", fake_model)
    for i, step in enumerate(STEPS):
        proc = _start(db, url, f"stopped{i}", fake_model, (signal.SIGINT, signal.SIGTERM))
        seconds = _signal_at(proc, step, signal.SIGTERM, after_s=0.05)
        assert proc.returncode == 130 and seconds < 15, (step, proc.returncode, proc.stderr_tail)
        _wait_session_ends(proc.pid)
        assert _latest(db) == "base"
        assert _runs(db)[f"stopped{i}"] == ("interrupted", step, "stopped (KeyboardInterrupt)")
    _assert_instance_clean(db)


def test_a_failed_step_is_recorded_and_never_shown_as_empty_data(tmp_path, demo_site, fake_model):
    from linkpipe.defs.runner import RunFailed, run_graph
    from linkpipe.lib.stages.crawl_export import register_crawl

    db = tmp_path / "site.duckdb"
    register_crawl(db, "good", demo_site.base_url + "/", "crawler", "", {"max_pages": 30})
    run_graph(db, "good", fake_model, workers=1)
    register_crawl(db, "bad", "http://127.0.0.1:9/", "crawler", "", {"max_pages": 5})
    with pytest.raises(RunFailed, match="crawl_export failed"):
        run_graph(db, "bad", fake_model, workers=1)
    runs = _runs(db)
    assert runs["good"][0] == "complete"
    status, step, error = runs["bad"]
    assert (status, step) == ("failed", "crawl and link graph")
    assert error is not None and "crawl_export failed" in error
    assert _latest(db) == "good"
    con = duckdb.connect(str(db), read_only=True)
    try:  # the page views show the complete crawl, not the failed one's empty partitions
        assert con.execute("SELECT count(*) FROM v_page_metrics").fetchone()[0] > 0
        assert con.execute("SELECT count(*) FROM v_opportunities").fetchone()[0] > 0
    finally:
        con.close()
    assert os.path.exists(tmp_path / "site.published.duckdb")
