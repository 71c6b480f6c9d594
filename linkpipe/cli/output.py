"""Terminal output of the CLI: progress lines and the suggestions table."""

from __future__ import annotations

import sys
import time
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console(stderr=False, width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)


class ProgressPrinter:
    """Receives (stage, done, total) reports and draws one updating line per stage."""

    def __init__(self) -> None:
        self._last: dict[str, float] = {}
        self._tty = sys.stderr.isatty()

    def __call__(self, stage: str, done: int, total: int) -> None:
        """``total`` is the number still queued for the crawl, the whole count otherwise."""
        now = time.monotonic()
        finished = total == 0 if stage == "crawl" else done >= total
        if not finished and now - self._last.get(stage, 0.0) < (0.2 if self._tty else 2.0):
            return
        self._last[stage] = now
        if stage == "crawl":
            text = f"  crawl: {done} pages fetched, {total} queued"
        else:
            text = f"  {stage}: {done}/{total}"
        if self._tty:
            sys.stderr.write("\r\033[K" + text + ("\n" if finished else ""))
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def step(self, label: str) -> None:
        """Announce a new step of the graph."""
        if self._tty:
            sys.stderr.write("\r\033[K")
        err_console.print(f"[bold]>[/bold] {label}")


def short_url(url: str) -> str:
    """Path and query of a URL, for narrow tables."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "") or "/"


def excerpt(sentence: str | None, anchor: str | None, width: int = 90) -> str:
    """The sentence cut around the anchor, the anchor in «guillemets»."""
    if not sentence:
        return "(needs a new sentence)"
    if anchor and anchor in sentence:
        i = sentence.index(anchor)
        sentence = sentence[:i] + "«" + anchor + "»" + sentence[i + len(anchor) :]
        start = max(0, i - width // 2)
        text = sentence[start : start + width]
        return ("…" if start else "") + text + ("…" if start + width < len(sentence) else "")
    return sentence[:width] + ("…" if len(sentence) > width else "")


def print_suggestions(rows: list[dict[str, Any]], title: str) -> None:
    """A readable table of suggestions."""
    table = Table(title=title, show_lines=True, expand=True)
    for name, style in (
        ("source", "cyan"),
        ("target", "green"),
        ("anchor", "bold"),
        ("sentence", ""),
        ("score", "magenta"),
        ("reason", "dim"),
    ):
        table.add_column(name, style=style, overflow="fold")
    for r in rows:
        table.add_row(
            escape(short_url(r["source_url"])),
            escape(short_url(r["target_url"])),
            escape(r["anchor_text"] or "-"),
            escape(excerpt(r["sentence"], r["anchor_text"])),
            f"{r['score']:.3f}",
            escape(r["reason"]),
        )
    console.print(table)


def print_rows(columns: list[str], rows: list[tuple], fmt: str) -> None:
    """Query results as a table, CSV or TSV."""
    if fmt in ("csv", "tsv"):
        import csv

        writer = csv.writer(
            sys.stdout, delimiter="," if fmt == "csv" else "\t", lineterminator="\n"
        )
        writer.writerow(columns)
        writer.writerows(rows)
        return
    table = Table(show_lines=False)
    for c in columns:
        table.add_column(c, overflow="fold")
    for row in rows:
        table.add_row(*("" if v is None else escape(str(v)) for v in row))
    console.print(table)
