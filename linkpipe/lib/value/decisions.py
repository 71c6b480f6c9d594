"""Editors' review decisions on suggestions: read from CSV, validated, kept across refreshes.

A decision belongs to a (source URL, target URL) pair, not to a crawl: rejected pairs never come
back in later crawls, accepted ones stay marked (and can be checked for implementation).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass
from pathlib import Path

from linkpipe.lib.importers import ImportFormatError
from linkpipe.lib.urls import http_url_problem

DECISIONS = ("accepted", "rejected", "deferred")
SOURCE_COLUMNS = ("source_url", "source", "from")
TARGET_COLUMNS = ("target_url", "target", "to")
DECISION_COLUMNS = ("decision", "status")
WHO_COLUMNS = ("decided_by", "who", "editor", "reviewer")
WHEN_COLUMNS = ("decided_at", "when", "date")
NOTE_COLUMNS = ("note", "notes", "comment", "decision_note")


@dataclass
class Decision:
    """One editor decision."""

    source_url: str
    target_url: str
    decision: str
    decided_by: str = ""
    decided_at: str = ""  # ISO-8601; now when empty
    note: str = ""

    def as_row(self) -> dict[str, str | None]:
        """Row for ``link_decisions``."""
        when = self.decided_at or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
        return {
            "source_url": self.source_url,
            "target_url": self.target_url,
            "decision": self.decision,
            "decided_by": self.decided_by or None,
            "decided_at": when,
            "note": self.note or None,
        }


def normalise_decision(value: str) -> str | None:
    """accepted / rejected / deferred from what editors type (``yes``, ``Reject``...)."""
    v = value.strip().lower()
    aliases = {
        "accept": "accepted",
        "yes": "accepted",
        "y": "accepted",
        "ok": "accepted",
        "reject": "rejected",
        "no": "rejected",
        "n": "rejected",
        "defer": "deferred",
        "later": "deferred",
        "maybe": "deferred",
    }
    v = aliases.get(v, v)
    return v if v in DECISIONS else None


@dataclass(frozen=True)
class DecisionColumns:
    """Where each field of a decision sits in the CSV header (optional ones may be absent)."""

    source: int
    target: int
    decision: int
    who: int | None
    when: int | None
    note: int | None


def _pick(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    return next((lowered.index(n) for n in names if n in lowered), None)


def read_decisions_csv(path: Path) -> list[Decision]:
    """Every decision of an editor's CSV; rows without a decision are skipped. Any bad row
    raises ImportFormatError naming file, line and column, and nothing is returned."""
    rows = _read_csv_rows(path)
    header = rows[0]
    columns = decision_columns(path.name, header)
    out = []
    for line, row in enumerate(rows[1:], start=2):
        decision = parse_decision_row(path.name, line, header, columns, row)
        if decision is not None:
            out.append(decision)
    return out


def _read_csv_rows(path: Path) -> list[list[str]]:
    """The CSV's rows, header first (a UTF-8 BOM is dropped), or those of the sheet of an
    XLSX file (``linkpipe export``) that has the decision columns; an unreadable or empty file
    raises ImportFormatError."""
    if path.suffix.lower() == ".xlsx":
        return _read_xlsx_rows(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(path.name, None, None, f"cannot read: {exc}") from exc
    rows = list(csv.reader(io.StringIO(text, newline="")))  # keeps line breaks inside cells
    if not rows:
        raise ImportFormatError(path.name, None, None, "the file is empty")
    return rows


def _read_xlsx_rows(path: Path) -> list[list[str]]:
    """Rows, cells as text, of the first sheet with source, target and decision columns."""
    from linkpipe.lib.exports import read_xlsx_rows

    def has_columns(header: list[str]) -> bool:
        names = (SOURCE_COLUMNS, TARGET_COLUMNS, DECISION_COLUMNS)
        return all(_pick(header, n) is not None for n in names)

    try:
        rows = read_xlsx_rows(path, has_columns)
    except ValueError as exc:
        raise ImportFormatError(path.name, None, None, f"cannot read: {exc}") from exc
    if rows is None:
        raise ImportFormatError(
            path.name, 1, None, "no sheet has source_url, target_url and decision columns"
        )
    return rows


def decision_columns(name: str, header: list[str]) -> DecisionColumns:
    """The columns of each field, found by their usual names; a missing source, target or
    decision column raises ImportFormatError (line 1)."""
    required: dict[str, int] = {}
    for label, names in (
        ("source_url", SOURCE_COLUMNS),
        ("target_url", TARGET_COLUMNS),
        ("decision", DECISION_COLUMNS),
    ):
        index = _pick(header, names)
        if index is None:
            raise ImportFormatError(name, 1, label, f"missing column {label!r}")
        required[label] = index
    return DecisionColumns(
        required["source_url"],
        required["target_url"],
        required["decision"],
        _pick(header, WHO_COLUMNS),
        _pick(header, WHEN_COLUMNS),
        _pick(header, NOTE_COLUMNS),
    )


def parse_decision_row(
    name: str, line: int, header: list[str], columns: DecisionColumns, row: list[str]
) -> Decision | None:
    """The decision of one CSV row; None for a blank row or one without a decision. A short
    row, an unknown decision, a relative URL or a bad date raises ImportFormatError."""
    if not any(cell.strip() for cell in row):
        return None
    if len(row) < len(header):
        raise ImportFormatError(name, line, None, f"expected {len(header)} fields, got {len(row)}")

    def cell(index: int | None) -> str:
        return row[index].strip() if index is not None else ""

    source, target, typed = cell(columns.source), cell(columns.target), cell(columns.decision)
    who, when, note = cell(columns.who), cell(columns.when), cell(columns.note)
    if not typed:
        return None
    decision = normalise_decision(typed)
    if decision is None:
        raise ImportFormatError(
            name,
            line,
            header[columns.decision],
            f"expected accepted, rejected or deferred, got {typed!r}",
        )
    for url, index in ((source, columns.source), (target, columns.target)):
        problem = http_url_problem(url)
        if problem:
            raise ImportFormatError(
                name, line, header[index], f"expected an absolute URL, got {url!r} ({problem})"
            )
    if when:
        _check_iso_date(name, line, header, columns.when, when)
    return Decision(source, target, decision, who, when, note)


def _check_iso_date(name: str, line: int, header: list[str], index: int | None, when: str) -> None:
    try:
        dt.datetime.fromisoformat(when)
    except ValueError as exc:
        column = header[index] if index is not None else None
        raise ImportFormatError(name, line, column, f"expected an ISO date, got {when!r}") from exc


class DecisionError(ValueError):
    """A decision that cannot be recorded; one line naming the value."""


def check_decision_urls(decision: Decision) -> None:
    """Both URLs are absolute http(s) URLs with a host, else DecisionError naming the value."""
    for label, url in (("source", decision.source_url), ("target", decision.target_url)):
        problem = http_url_problem(url)
        if problem:
            raise DecisionError(f"bad {label} URL {url!r}: {problem}; nothing recorded")


def unknown_pair_warnings(db_path: str | Path, decisions: list[Decision]) -> list[str]:
    """One line per decision whose source or target is no page of any crawl in the database
    (such a decision is kept, but matches no suggestion until a crawl finds the page)."""
    from linkpipe.lib.storage import fetch_dicts, open_db

    urls = sorted({u for d in decisions for u in (d.source_url, d.target_url)})
    if not Path(db_path).exists():
        unknown = set(urls)
    else:
        with open_db(db_path) as con:
            rows = fetch_dicts(con, "read/select_unknown_page_urls", [urls])
        unknown = {str(row["url"]) for row in rows}
    warnings = []
    for d in decisions:
        missing = [
            label
            for label, url in (("source", d.source_url), ("target", d.target_url))
            if url in unknown
        ]
        if missing:
            which = "source and target match" if len(missing) == 2 else f"{missing[0]} matches"
            warnings.append(
                f"warning: {d.source_url} -> {d.target_url}: {which} no page of any crawl "
                "(recorded anyway)"
            )
    return warnings


def save_decisions(db_path: str | Path, decisions: list[Decision], crawl_id: str | None) -> int:
    """Upsert decisions in one transaction (all or nothing); return how many were written. A
    URL that is not an http(s) URL raises DecisionError before anything is written."""
    from linkpipe.lib.storage import execute, open_db, transaction

    for d in decisions:
        check_decision_urls(d)
    with open_db(db_path) as con, transaction(con):
        for d in decisions:
            execute(con, "write/upsert_decision", [*d.as_row().values(), crawl_id])
    return len(decisions)
