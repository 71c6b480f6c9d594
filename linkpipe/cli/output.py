"""Terminal output of the CLI: the suggestions table and query results."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

console = Console(stderr=False, width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)
MIN_TEXT_WIDTH = 16  # a wrapped text column (or header) of query results is never narrower


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
        keep = (i, i + len(anchor) + 2)
        start, end = word_window(sentence, max(0, i - width // 2), width, keep)
    else:
        start, end = word_window(sentence, 0, width, (0, 0))
    text = sentence[start:end].strip()
    return ("…" if start else "") + text + ("…" if end < len(sentence) else "")


def word_window(text: str, start: int, width: int, keep: tuple[int, int]) -> tuple[int, int]:
    """``text[start:start + width]`` shrunk to whole words, still holding ``text[keep]``: the
    start moves to the next word, the end back to the last space (one long word stays cut)."""
    end = min(len(text), max(start + width, keep[1]))
    if 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        space = text.find(" ", start, keep[0])
        start = space + 1 if space >= 0 else start
    if 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        space = text.rfind(" ", start, end)
        end = space if space >= keep[1] else end
    return start, end


def print_suggestions(rows: list[dict[str, Any]], title: str) -> None:
    """A readable table of suggestions."""
    table = Table(title=title, show_lines=True, expand=True)
    for name, style in (
        ("source", "cyan"),
        ("target", "green"),
        ("anchor", "bold"),
        ("sentence", ""),
        ("confidence", "magenta"),
        ("reason", "dim"),
    ):
        table.add_column(name, style=style, overflow="fold")
    for r in rows:
        table.add_row(
            escape(short_url(r["source_url"])),
            escape(short_url(r["target_url"])),
            escape(r["anchor_text"] or "-"),
            escape(excerpt(r["sentence"], r["anchor_text"])),
            f"{r['confidence']:.2f}",
            escape(r["reason"]),
        )
    console.print(table)


def weights_line(row: dict[str, Any] | None) -> str:
    """One line on the relevance weights a crawl was scored with (see links/weights.py)."""
    if row is None:
        return "Scoring weights: not recorded for this crawl"
    names = ("semantic", "lexical", "title", "mention", "graph")
    weights = ", ".join(f"{n} {row['w_' + n]:.2f}" for n in names)
    return f"Scoring weights ({weights}): {row['reason']}"


def print_rows(
    columns: list[str], rows: Sequence[tuple[Any, ...]], fmt: str, out: Console | None = None
) -> None:
    """Query results as a table, CSV or TSV (CSV and TSV keep every value as it is)."""
    if fmt in ("csv", "tsv"):
        import csv

        writer = csv.writer(
            sys.stdout, delimiter="," if fmt == "csv" else "\t", lineterminator="\n"
        )
        writer.writerow(columns)
        writer.writerows(rows)
        return
    print_table(columns, rows, out or console)


def pick_columns(
    columns: list[str], rows: Sequence[tuple[Any, ...]], wanted: str
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The columns named in ``wanted`` ("a,b", any case), in that order, and their values; a
    one-line error naming the query's columns when one is unknown."""
    from linkpipe.cli.errors import UserError

    index = {c.lower(): i for i, c in reversed(list(enumerate(columns)))}
    names = [n.strip() for n in wanted.split(",") if n.strip()]
    unknown = [n for n in names if n.lower() not in index]
    if unknown or not names:
        raise UserError(
            f"--columns: no column named {', '.join(unknown) or '(none given)'}; "
            f"the query returns: {', '.join(columns)}"
        )
    picked = [index[n.lower()] for n in names]
    return [columns[i] for i in picked], [tuple(row[i] for i in picked) for row in rows]


def format_value(value: Any) -> str:
    """A value as a table shows it: floats rounded (see :func:`format_float`), lists and
    structs with their items formatted, NULL as an empty cell."""
    if value is None:
        return ""
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def format_float(value: float) -> str:
    """Three decimals between 0.1 and 1 (0.873), three significant digits below (0.0123,
    0.000871), four above (12.35, 1235, 12346 keeps its integer digits); scientific notation
    for the very small and the very large."""
    if value == 0 or not math.isfinite(value):
        return str(value) if value else "0"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude < -6 or magnitude >= 15:
        return f"{value:.3e}"
    decimals = max(3, 2 - magnitude) if magnitude < 0 else max(0, 3 - magnitude)
    return f"{value:.{decimals}f}"


def print_table(columns: list[str], rows: Sequence[tuple[Any, ...]], out: Console) -> None:
    """Rows as a table that fits ``out``: long text wraps, never below
    :data:`MIN_TEXT_WIDTH`; columns that still do not fit are left out and named below."""
    cells = [[format_value(v) for v in row] for row in rows]
    numeric = [
        all(_is_number(row[i]) for row in rows if row[i] is not None) for i in range(len(columns))
    ]
    least = [_least_width(c, [r[i] for r in cells], numeric[i]) for i, c in enumerate(columns)]
    empty = [not any(r[i] for r in cells) for i in range(len(columns))]
    shown = fitting_columns(least, empty, out.width)
    table = Table(show_lines=False)
    for i in shown:
        table.add_column(
            escape(columns[i]),
            overflow="fold",
            min_width=least[i],
            justify="right" if numeric[i] else "left",
        )
    for row in cells:
        table.add_row(*(escape(row[i]) for i in shown))
    out.print(table)
    left_out = [c for i, c in enumerate(columns) if i not in shown]
    if left_out:
        out.print(
            Text(
                f"{len(shown)} of {len(columns)} columns fit in {out.width} characters; left "
                f"out: {', '.join(left_out)}. Choose columns with --columns "
                f"{','.join(left_out[:2])} or see them all with --format csv.",
                style="dim",
            )
        )


def fitting_columns(least: list[int], empty: list[bool], width: int) -> list[int]:
    """Indexes of the columns shown in ``width`` characters, in query order: while their least
    widths fit, columns with values first, then ``empty`` ones; at least one column."""
    room = width - 1  # the table's left edge; each column adds two of padding and one edge
    shown: list[int] = []
    for i in sorted(range(len(least)), key=lambda i: (empty[i], i)):
        if least[i] + 3 <= room or not shown:
            shown.append(i)
            room -= least[i] + 3
    return sorted(shown)


def _least_width(name: str, values: list[str], numeric: bool) -> int:
    """The narrowest a column may get: numbers whole, text and headers down to
    :data:`MIN_TEXT_WIDTH` (wrapped)."""
    widest = max((cell_len(line) for v in values for line in v.splitlines() or [""]), default=0)
    header = min(cell_len(name), MIN_TEXT_WIDTH)
    return max(header, widest if numeric else min(widest, MIN_TEXT_WIDTH), 1)


def _is_number(value: Any) -> bool:
    """Whether ``value`` is a number (not a boolean)."""
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)
