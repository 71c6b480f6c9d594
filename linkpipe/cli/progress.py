"""Progress of a run on stderr: rich bars on a terminal, a plain line every few seconds otherwise.

Stages report through :mod:`linkpipe.lib.progress` as ``(stage, done, total)``. For the stage
``crawl`` the third number is what is still queued, not a total: its bar grows as links are found.
Each finished stage leaves one summary line (count, seconds, rate) in the scrollback or log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from linkpipe.lib import progress

PLAIN_INTERVAL_S = 3.0  # without a terminal: at most one line per stage this often


class RateColumn(ProgressColumn):
    """Items per second of a task."""

    def render(self, task: Task) -> Text:
        """The rate, e.g. ``12.5/s``."""
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "?/s", style="progress.data.speed")


@dataclass
class _Stage:
    """What the display remembers of a stage between reports."""

    started: float
    done: int = 0
    whole: int = 0
    finished: bool = False
    reports: int = 0
    last_line: float | None = None
    task: TaskID | None = None


def _counts(stage: str, done: int, total: int) -> tuple[int, int]:
    """(done, whole) of a report: the crawl reports what is still queued, not a total."""
    return (done, done + total) if stage == "crawl" else (done, max(done, total))


def _describe(stage: str, done: int, whole: int) -> str:
    if stage == "crawl":
        return f"crawl: {done} pages fetched, {whole - done} queued"
    return f"{stage}: {done}/{whole}"


class ProgressDisplay:
    """Installs itself as the progress reporter while in a ``with`` block and draws reports."""

    def __init__(
        self,
        console: Console,
        clock: Callable[[], float] = time.monotonic,
        plain_interval_s: float = PLAIN_INTERVAL_S,
    ) -> None:
        self.console = console
        self.live = console.is_terminal and not console.is_dumb_terminal
        self._clock = clock
        self._interval_s = plain_interval_s
        self._stages: dict[str, _Stage] = {}
        self._lock = threading.Lock()
        self._bars = Progress(
            TextColumn("  {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            RateColumn(),
            TimeRemainingColumn(),
            console=console,
            get_time=clock,
        )

    def __enter__(self) -> ProgressDisplay:
        if self.live:
            self._bars.start()
        progress.set_reporter(self)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        progress.set_reporter(None)
        if self.live:
            self._bars.stop()

    def step(self, label: str) -> None:
        """Announce a new step of the graph; stages reported after it start afresh."""
        self._forget_finished()
        self.console.print(f"[bold]>[/bold] {escape(label)}")

    def log(self, message: str) -> None:
        """Print a message of the caller's own (a step of `linkpipe eval`, say) between bars."""
        self._forget_finished()
        self.console.print(message, markup=False, highlight=False, soft_wrap=True)

    def _forget_finished(self) -> None:
        with self._lock:
            self._stages = {k: s for k, s in self._stages.items() if not s.finished}

    def __call__(self, stage: str, done: int, total: int) -> None:
        """Receive one report (the signature of :data:`linkpipe.lib.progress.Reporter`)."""
        done, whole = _counts(stage, done, total)
        finished = done >= whole and (done > 0 or stage != "crawl")
        with self._lock:
            state = self._stages.get(stage)
            if state is not None and state.finished:
                if finished:
                    return  # a repeated final report (the crawl sends two)
                state = None  # the same stage again, e.g. the next seed of `linkpipe eval`
            if state is None:
                state = self._stages[stage] = _Stage(started=self._clock())
            state.done, state.whole, state.finished = done, whole, finished
            state.reports += 1
            if self.live:
                self._draw_bar(stage, state)
            else:
                self._write_line(stage, state)

    def _draw_bar(self, stage: str, state: _Stage) -> None:
        if state.task is None:
            state.task = self._bars.add_task(escape(stage), total=state.whole)
        self._bars.update(state.task, completed=state.done, total=state.whole)
        if state.finished:
            self._bars.remove_task(state.task)
            self._bars.refresh()  # else the next print redraws the removed bar
            self._bars.console.print(self._summary(stage, state), highlight=False)

    def _write_line(self, stage: str, state: _Stage) -> None:
        now = self._clock()
        if state.finished:
            text = self._summary(stage, state)
        elif state.last_line is None or now - state.last_line >= self._interval_s:
            text = "  " + escape(_describe(stage, state.done, state.whole))
        else:
            return
        state.last_line = now
        self.console.print(text, highlight=False, soft_wrap=True)

    def _summary(self, stage: str, state: _Stage) -> str:
        counted = f"{state.done} pages fetched" if stage == "crawl" else f"{state.done} done"
        seconds = self._clock() - state.started
        if state.reports < 2 or seconds <= 0:  # one report: no time to measure
            return f"  {escape(stage)}: {counted}"
        return f"  {escape(stage)}: {counted} in {seconds:.1f}s, {state.done / seconds:,.1f}/s"
