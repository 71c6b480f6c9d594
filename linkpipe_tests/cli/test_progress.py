"""Progress on stderr: plain lines every few seconds without a terminal, rich bars with one."""

import io
import re

from rich.console import Console

from linkpipe.cli.progress import ProgressDisplay
from linkpipe.lib import progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def plain_display() -> tuple[ProgressDisplay, io.StringIO, Clock]:
    out, clock = io.StringIO(), Clock()
    console = Console(file=out, force_terminal=False, width=60)
    return ProgressDisplay(console, clock=clock, plain_interval_s=3.0), out, clock


def test_plain_lines_every_few_seconds_and_a_summary_per_stage():
    display, out, clock = plain_display()
    with display:
        display.step("crawl and link graph")
        for at, done, queued in ((0, 0, 1), (1, 3, 9), (3.5, 6, 12), (4, 9, 8), (5, 20, 0)):
            clock.now = 100.0 + at
            progress.report("crawl", done, queued)
        progress.report("crawl", 21, 0)  # the crawl's final count again, once stored
        progress.report("embeddings shard 0", 13, 13)  # a single report: no rate to measure
    progress.report("crawl", 1, 1)  # after the block: no reporter
    assert out.getvalue().splitlines() == [
        "> crawl and link graph",
        "  crawl: 0 pages fetched, 1 queued",
        "  crawl: 6 pages fetched, 12 queued",
        "  crawl: 20 pages fetched in 5.0s, 4.0/s",
        "  embeddings shard 0: 13 done",
    ]


def test_a_stage_that_runs_again_starts_afresh():
    display, out, clock = plain_display()
    with display:
        for seed in (0, 1):
            display.log(f"seed {seed}: summaries and embeddings")
            clock.now += 1
            progress.report("summaries shard 0", 1, 4)
            clock.now += 2
            progress.report("summaries shard 0", 4, 4)
    assert out.getvalue().splitlines() == [
        "seed 0: summaries and embeddings",
        "  summaries shard 0: 1/4",
        "  summaries shard 0: 4 done in 2.0s, 2.0/s",
        "seed 1: summaries and embeddings",
        "  summaries shard 0: 1/4",
        "  summaries shard 0: 4 done in 2.0s, 2.0/s",
    ]


def test_terminal_draws_bars_and_keeps_only_summaries():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with ProgressDisplay(console) as display:
        assert display.live
        progress.report("crawl", 1, 22)
        progress.report("summaries shard 0", 5, 10)
        progress.report("crawl", 75, 0)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert re.search(r"crawl +\S+ +1/23", text)  # the bar: fetched of fetched + queued
    assert re.search(r"summaries shard 0 +\S+ +5/10", text)
    assert "  crawl: 75 pages fetched in " in text
    last_frame = text.rsplit("pages fetched in ", 1)[1]
    assert "1/23" not in last_frame and "5/10" in last_frame  # finished bars are removed
