"""ordered_map: results in order from worker processes; a failure ends every worker."""

import os
import time
from pathlib import Path

import pytest

from linkpipe.lib.processes import ordered_map, worker_count

STATE: list[int] = []


def _setup(offset: int) -> None:
    STATE[:] = [offset]


def _work(item: int) -> tuple[int, int]:
    time.sleep(0.01 * (item % 3))  # results finish out of order
    return item + STATE[0], os.getpid()


def _fail(item: int) -> int:
    if item == 5:
        raise ValueError(f"item {item} is bad")
    time.sleep(0.05)
    return item


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, command line) of every process, read from /proc."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # ended meanwhile
            continue
        found[int(stat.parent.name)] = (int(fields[1]), fields[0], cmdline)
    return found


def _workers_alive() -> list[int]:
    """Live processes forked by this process's forkserver (the workers)."""
    table = _processes()
    servers = {pid for pid, (ppid, _, cmd) in table.items()
               if ppid == os.getpid() and "forkserver" in cmd}  # fmt: skip
    return [pid for pid, (ppid, state, _) in table.items() if ppid in servers and state != "Z"]


def test_results_come_in_order_from_several_processes() -> None:
    results = list(ordered_map(_work, range(40), 2, _setup, (1000,)))
    assert [r for r, _ in results] == [1000 + i for i in range(40)]
    pids = {pid for _, pid in results}
    assert len(pids) == 2 and os.getpid() not in pids
    assert _workers_alive() == []  # the pool is shut down after the last result


def test_a_failure_is_raised_and_ends_the_workers() -> None:
    with pytest.raises(ValueError, match="item 5 is bad"):
        list(ordered_map(_fail, range(100), 2))
    deadline = time.monotonic() + 10
    while _workers_alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers_alive() == []


def test_leaving_early_ends_the_workers() -> None:
    results = ordered_map(_work, range(1000), 2, _setup, (0,))
    assert next(results)[0] == 0
    assert len(_workers_alive()) == 2  # the check sees the workers while they live
    results.close()
    deadline = time.monotonic() + 10
    while _workers_alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _workers_alive() == []


def test_worker_count_follows_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("LINKPIPE_WORKERS", "3")
    assert worker_count(10) == 3 and worker_count(2) == 2
    monkeypatch.setenv("LINKPIPE_WORKERS", "")
    assert 1 <= worker_count(10) == min(10, len(os.sched_getaffinity(0)))
    assert worker_count(0) == 1
