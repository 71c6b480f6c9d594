"""Run a crawl in a worker subprocess and hand back its files (Scrapy's reactor is not
restartable, and callers live in long-running Dagster and pytest processes)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO

import linkpipe
from linkpipe.lib.crawl.config import (
    CONFIG_FILE,
    PREVIOUS_FILE,
    PROGRESS_PREFIX,
    STATS_FILE,
    CrawlConfig,
    CrawlError,
    CrawlResult,
)
from linkpipe.lib.crawl.output import write_previous

Progress = Callable[[int, int], None]
GRACE_S = 60.0  # beyond total_time_s before the worker is killed


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line.rstrip("\n"))
    lines.put(None)


def _worker_env() -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(linkpipe.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH", "")]))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_crawl(config: CrawlConfig, out_dir: Path, progress: Progress | None = None) -> CrawlResult:
    """Crawl ``config.start_url`` into ``out_dir`` (pages.jsonl, links.jsonl, stats.json).

    ``progress(fetched, queued)`` is called from this thread as the worker reports. Raises
    :class:`CrawlError` with a one-line reason when the crawl yields no HTML page.
    """
    if not config.start_url.strip().lower().startswith(("http://", "https://")):
        raise CrawlError(f"start URL must begin with http:// or https://: {config.start_url!r}")
    out_dir = Path(out_dir)
    config_path = _write_config(config, out_dir)
    command = [sys.executable, "-m", "linkpipe.lib.crawl.worker", str(config_path), str(out_dir)]
    proc = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        env=_worker_env(),
    )
    try:
        returncode, tail = _follow(proc, config, progress)
    except BaseException:  # Ctrl-C, SIGTERM, or the error a framework raises for them
        proc.send_signal(signal.SIGINT)  # lets Scrapy save its JOBDIR state
        proc.wait(timeout=30)
        raise
    return _result(out_dir, returncode, tail)


def _write_config(config: CrawlConfig, out_dir: Path) -> Path:
    """The worker's settings file (and the previous crawl's pages beside it); its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = config.to_dict()
    if config.previous:
        write_previous(config.previous.items(), out_dir / PREVIOUS_FILE)
        data["previous_path"] = str((out_dir / PREVIOUS_FILE).resolve())
    config_path = out_dir / CONFIG_FILE
    config_path.write_text(json.dumps(data), encoding="utf-8")
    (out_dir / STATS_FILE).unlink(missing_ok=True)
    return config_path


def _follow(
    proc: subprocess.Popen[str], config: CrawlConfig, progress: Progress | None
) -> tuple[int, list[str]]:
    """Relay the worker's progress lines until it exits; its exit status and last other lines.
    Kills it past the crawl's time budget."""
    assert proc.stderr is not None
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stderr, lines), daemon=True).start()
    tail: deque[str] = deque(maxlen=30)
    budget = config.total_time_s + config.request_timeout_s * (config.retry_times + 1) + GRACE_S
    deadline = time.monotonic() + budget
    while True:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            if time.monotonic() > deadline:
                proc.kill()
                raise CrawlError(
                    f"crawl of {config.start_url} did not stop in time; worker killed"
                ) from None
            continue
        if line is None:
            return proc.wait(), list(tail)
        if line.startswith(PROGRESS_PREFIX):
            _, fetched, queued = line.split()
            if progress is not None:
                progress(int(fetched), int(queued))
        elif line.strip():
            tail.append(line)


def _result(out_dir: Path, returncode: int, tail: list[str]) -> CrawlResult:
    """The finished crawl, or :class:`CrawlError` with the worker's reason."""
    stats_path = out_dir / STATS_FILE
    if not stats_path.exists():
        detail = next(
            (t for t in reversed(tail) if "Error" in t or "error" in t), tail[-1] if tail else ""
        )
        raise CrawlError(f"crawl worker failed (exit {returncode}): {detail.strip()}")
    stats = json.loads(stats_path.read_text(encoding="utf-8"))
    if stats.get("fatal"):
        raise CrawlError(stats["fatal"])
    return CrawlResult(out_dir=out_dir, stats=stats)
