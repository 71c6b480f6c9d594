"""Terminal output of the CLI: the suggestions table and query results."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console(stderr=False, width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)


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


def print_rows(columns: list[str], rows: Sequence[tuple[Any, ...]], fmt: str) -> None:
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
