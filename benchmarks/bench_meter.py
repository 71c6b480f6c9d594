"""CPU, wall time and peak memory of consecutive stages of one process and its children; used by
bench_pipeline.py and bench_models_1m.py (not a script of its own).

CPU of a stage = its change in ``getrusage(RUSAGE_SELF)`` + ``getrusage(RUSAGE_CHILDREN)``
(children reaped during the stage: the crawler) + the CPU that still-running descendants
(process pools) spent during the stage, read with psutil at the stage's ends; the sampler
thread's own CPU is subtracted. Peak memory: the process's exact high-water mark (VmHWM, reset at
each stage start through /proc/self/clear_refs), and the peak of the proportional set size
(PSS, shared pages split between the processes that map them: a forkserver and its workers are
not counted twice) of self + live descendants, sampled every 0.2 s.

:func:`served_apart` serves a site from a child process that the meter leaves out: a site
served from a thread of the measuring process would count the server's CPU as the crawler's.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

from linkpipe.lib.model_cpu import MODELS

SAMPLE_S = 0.2
MIB = 1024 * 1024


@dataclass
class StageUsage:
    """What one stage cost."""

    stage: str
    wall_s: float
    cpu_s: float  # self + children
    cpu_self_s: float
    cpu_children_s: float
    rss_self_peak_mib: float  # this process's peak during the stage
    rss_tree_peak_mib: float  # PSS of self + live descendants, sampled (>= rss_self_peak_mib)
    rows: dict[str, int] = field(default_factory=dict)  # rows written, when the stage says
    # CPU s of the models inside the stage, from its metadata (linkpipe.lib.model_cpu)
    models: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in asdict(self).items()}


def _status_kib(pid: int | str, key: str, file: str = "status") -> int:
    """A memory field of ``/proc/<pid>/status`` (``VmHWM``) or ``smaps_rollup`` (``Pss``) in
    KiB, 0 if the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def _reset_peak() -> bool:
    """Reset this process's VmHWM (Linux >= 4.0); False where not allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def rusage_cpu() -> tuple[float, float]:
    """(CPU seconds of this process, of the children it reaped) so far."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


IGNORED_PIDS: set[int] = set()  # descendants that are not the product (a site's server)

_SERVE = (
    "import sys; from pathlib import Path; from linkpipe.lib.static_site import start_site; "
    "site = start_site(Path(sys.argv[1])); print(site.base_url, flush=True); sys.stdin.read()"
)


@contextmanager
def served_apart(root: Path) -> Iterator[str]:
    """Serve ``root`` on 127.0.0.1 from a child process the meter ignores; yields the base URL."""
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    IGNORED_PIDS.add(server.pid)
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.kill()
        server.wait()
        IGNORED_PIDS.discard(server.pid)


def _descendants() -> list[psutil.Process]:
    """Live descendants of this process, without :data:`IGNORED_PIDS`."""
    return [p for p in psutil.Process().children(recursive=True) if p.pid not in IGNORED_PIDS]


def _live_children_cpu() -> float:
    """CPU seconds of this process's live descendants (with what they reaped themselves)."""
    total = 0.0
    for child in _descendants():
        try:
            t = child.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            continue
    return total


class _Sampler(threading.Thread):
    """Samples self + descendants' memory until stopped; keeps its own CPU time."""

    def __init__(self) -> None:
        super().__init__(daemon=True, name="bench-sampler")
        self.peak_kib = 0
        self.cpu_s = 0.0
        self._stop_event = threading.Event()

    def run(self) -> None:
        started = time.thread_time()
        while not self._stop_event.is_set():
            self.peak_kib = max(self.peak_kib, self._tree_kib())
            self._stop_event.wait(SAMPLE_S)
        self.cpu_s = time.thread_time() - started

    def _tree_kib(self) -> int:
        total = _status_kib("self", "Pss", "smaps_rollup")
        for child in _descendants():
            total += _status_kib(child.pid, "Pss", "smaps_rollup")
        return total

    def finish(self) -> None:
        self._stop_event.set()
        self.join()


@dataclass
class _Open:
    label: str
    wall: float
    cpu_self: float
    cpu_reaped: float
    cpu_live: float
    sampler: _Sampler
    exact_peak: bool


class Meter:
    """Measures consecutive stages: ``switch(label)`` ends the running stage and starts one."""

    def __init__(self, echo: bool = False) -> None:
        self.stages: list[StageUsage] = []
        self._open: _Open | None = None
        self.echo = echo  # print each stage's usage to stderr as it ends (long runs)

    def switch(self, label: str) -> None:
        """End the running stage (if any) and start measuring ``label``."""
        self.stop()
        sampler = _Sampler()
        exact = _reset_peak()
        cpu_self, cpu_reaped = rusage_cpu()
        self._open = _Open(
            label, time.perf_counter(), cpu_self, cpu_reaped, _live_children_cpu(), sampler, exact
        )
        sampler.start()

    def stop(
        self, rows: dict[str, int] | None = None, models: dict[str, float] | None = None
    ) -> StageUsage | None:
        """End the running stage; return (and keep) its usage (``rows`` and ``models``: what
        the stage's results say)."""
        if self._open is None:
            return None
        o, self._open = self._open, None
        wall = time.perf_counter() - o.wall
        o.sampler.finish()
        cpu_self, cpu_reaped = rusage_cpu()
        live = _live_children_cpu()
        self_s = cpu_self - o.cpu_self - o.sampler.cpu_s
        children_s = cpu_reaped - o.cpu_reaped + live - o.cpu_live
        hwm = _status_kib("self", "VmHWM") if o.exact_peak else o.sampler.peak_kib
        usage = StageUsage(
            o.label,
            wall,
            self_s + children_s,
            self_s,
            children_s,
            hwm / 1024,
            max(hwm, o.sampler.peak_kib) / 1024,
            dict(rows or {}),
            dict(models or {}),
        )
        self.stages.append(usage)
        if self.echo:
            print(
                f"  {usage.stage}: cpu {usage.cpu_s:,.1f} s, wall {usage.wall_s:,.1f} s, "
                f"rss {usage.rss_tree_peak_mib:,.0f} MiB",
                file=sys.stderr,
                flush=True,
            )
        return usage

    def measure(self, label: str) -> _Measured:
        """``with meter.measure(label) as m: ...; m.rows = ...``: one stage as a block."""
        return _Measured(self, label)


class _Measured:
    def __init__(self, meter: Meter, label: str) -> None:
        self.meter, self.label = meter, label
        self.rows: dict[str, int] = {}
        self.models: dict[str, float] = {}

    def __enter__(self) -> _Measured:
        self.meter.switch(self.label)
        return self

    def __exit__(self, *exc: object) -> None:
        self.meter.stop(self.rows, self.models)


def total(stages: list[StageUsage], label: str = "total") -> StageUsage:
    """The sum of stages (times added, peaks the largest)."""
    return StageUsage(
        label,
        sum(s.wall_s for s in stages),
        sum(s.cpu_s for s in stages),
        sum(s.cpu_self_s for s in stages),
        sum(s.cpu_children_s for s in stages),
        max((s.rss_self_peak_mib for s in stages), default=0.0),
        max((s.rss_tree_peak_mib for s in stages), default=0.0),
        models={m: sum(s.models.get(m, 0.0) for s in stages) for m in MODELS},
    )
