"""Editors' review decisions on suggestions: read from CSV, validated, kept across refreshes.

A decision belongs to a (source URL, target URL) pair, not to a crawl: rejected pairs never come
back in later crawls, accepted ones stay marked (and can be checked for implementation).
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from linkpipe.lib.importers import ImportFormatError

DECISIONS = ("accepted", "rejected", "deferred")
SOURCE_COLUMNS = ("source_url", "source", "from")
TARGET_COLUMNS = ("target_url", "target", "to")
DECISION_COLUMNS = ("decision", "status")
WHO_COLUMNS = ("decided_by", "who", "editor", "reviewer")
WHEN_COLUMNS = ("decided_at", "when", "date")
NOTE_COLUMNS = ("note", "notes", "comment")


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


def _pick(header: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [h.strip().lower() for h in header]
    return next((lowered.index(n) for n in names if n in lowered), None)


def read_decisions_csv(path: Path) -> list[Decision]:
    """Every decision of an editor's CSV; rows without a decision are skipped. Any bad row
    raises ImportFormatError naming file, line and column, and nothing is returned."""
    name = path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(name, None, None, f"cannot read: {exc}") from exc
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise ImportFormatError(name, None, None, "the file is empty")
    header = rows[0]
    cols = {
        k: _pick(header, names)
        for k, names in (
            ("source", SOURCE_COLUMNS),
            ("target", TARGET_COLUMNS),
            ("decision", DECISION_COLUMNS),
            ("who", WHO_COLUMNS),
            ("when", WHEN_COLUMNS),
            ("note", NOTE_COLUMNS),
        )
    }
    for key, label in (
        ("source", "source_url"),
        ("target", "target_url"),
        ("decision", "decision"),
    ):
        if cols[key] is None:
            raise ImportFormatError(name, 1, label, f"missing column {label!r}")
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            raise ImportFormatError(
                name, line, None, f"expected {len(header)} fields, got {len(row)}"
            )
        get = {k: (row[i].strip() if i is not None else "") for k, i in cols.items()}
        if not get["decision"]:
            continue
        decision = normalise_decision(get["decision"])
        if decision is None:
            raise ImportFormatError(
                name,
                line,
                header[cols["decision"]],
                f"expected accepted, rejected or deferred, got {get['decision']!r}",
            )
        for key in ("source", "target"):
            if not get[key].startswith(("http://", "https://")):
                raise ImportFormatError(
                    name, line, header[cols[key]], f"expected an absolute URL, got {get[key]!r}"
                )
        if get["when"]:
            try:
                dt.datetime.fromisoformat(get["when"])
            except ValueError as exc:
                raise ImportFormatError(
                    name, line, header[cols["when"]], f"expected an ISO date, got {get['when']!r}"
                ) from exc
        out.append(
            Decision(get["source"], get["target"], decision, get["who"], get["when"], get["note"])
        )
    return out


def save_decisions(db_path: str | Path, decisions: list[Decision], crawl_id: str | None) -> int:
    """Upsert decisions in one transaction (all or nothing); return how many were written."""
    from linkpipe.lib.storage import execute, open_db, transaction

    with open_db(db_path) as con, transaction(con):
        for d in decisions:
            execute(con, "write/upsert_decision", [*d.as_row().values(), crawl_id])
    return len(decisions)
