"""Business-value signals from CSV exports: Search Console, analytics, backlinks, priority lists.

Columns are read by name (common export names are recognised); URLs are normalised and matched
to crawled pages by full URL, else by path, so an export from the live host still matches a
crawl of a staging host. The value of a page is in 0..1 and explained in words.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import duckdb

from linkpipe.lib.importers import ImportFormatError
from linkpipe.lib.urls import normalize_url

KINDS = ("gsc", "analytics", "backlinks", "priority")
URL_COLUMNS = ("url", "page", "address", "landing page", "top pages", "target url", "page path")
NUMERIC_COLUMNS = {
    "clicks": ("clicks", "url clicks"),
    "impressions": ("impressions",),
    "position": ("position", "average position", "avg. position"),
    "conversions": ("conversions", "key events", "goal completions", "transactions"),
    "backlinks": ("referring domains", "ref domains", "backlinks", "linking sites", "dofollow"),
    "priority": ("priority", "weight"),
}
STRIKING_DISTANCE = (8.0, 20.0)


@dataclass
class PageSignals:
    """The imported signals of one URL (None when not imported)."""

    url: str
    clicks: float | None = None
    impressions: float | None = None
    position: float | None = None
    conversions: float | None = None
    backlinks: float | None = None
    priority: float | None = None


@dataclass
class BusinessValue:
    """A page's value (0..1) and the words that explain it."""

    value: float = 0.0
    notes: list[str] = field(default_factory=list)


def _number(text: str, name: str, line: int, column: str) -> float | None:
    t = text.strip().replace(",", "").replace("%", "")
    if not t:
        return None
    try:
        return float(t)
    except ValueError as exc:
        raise ImportFormatError(name, line, column, f"expected a number, got {text!r}") from exc


def read_signals_csv(path: Path, kind: str) -> list[PageSignals]:
    """Rows of a signals CSV; a bad row raises ImportFormatError (file, line, column)."""
    if kind not in KINDS:
        raise ValueError(f"unknown signals kind {kind!r}; expected one of {', '.join(KINDS)}")
    name = path.name
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(name, None, None, f"cannot read: {exc}") from exc
    if not rows:
        raise ImportFormatError(name, None, None, "the file is empty")
    header = [h.strip() for h in rows[0]]
    lowered = [h.lower() for h in header]
    url_col = next((lowered.index(c) for c in URL_COLUMNS if c in lowered), None)
    if url_col is None:
        raise ImportFormatError(name, 1, "url", "missing a URL column (url, page, address...)")
    numeric = {
        key: next((lowered.index(c) for c in names if c in lowered), None)
        for key, names in NUMERIC_COLUMNS.items()
    }
    out = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) <= url_col or not row[url_col].strip():
            raise ImportFormatError(name, line, header[url_col], "missing URL")
        values: dict[str, float | None] = {}
        for key, col in numeric.items():
            if col is not None and col < len(row):
                values[key] = _number(row[col], name, line, header[col])
        if kind == "priority" and values.get("priority") is None:
            values["priority"] = 1.0
        out.append(PageSignals(url=row[url_col].strip(), **values))
    return out


def match_urls(signals: list[PageSignals], crawl_urls: list[str]) -> dict[str, PageSignals]:
    """Signals keyed by crawled URL: exact normalised match first, then by path and query."""
    by_url = set(crawl_urls)
    by_path: dict[str, str] = {}
    for url in crawl_urls:
        p = urlsplit(url)
        by_path.setdefault(p.path + ("?" + p.query if p.query else ""), url)
    out: dict[str, PageSignals] = {}
    for sig in signals:
        try:
            norm = normalize_url(sig.url) if "://" in sig.url else sig.url
        except ValueError:
            continue
        if norm in by_url:
            out[norm] = sig
            continue
        p = urlsplit(norm)
        key = (p.path or "/") + ("?" + p.query if p.query else "")
        if key in by_path:
            out[by_path[key]] = sig
    return out


def _lognorm(value: float | None, top: float) -> float:
    if not value or value <= 0 or top <= 0:
        return 0.0
    return math.log1p(value) / math.log1p(top)


def business_values(signals: dict[str, PageSignals]) -> dict[str, BusinessValue]:
    """Value in 0..1 per URL: traffic, striking distance (positions 8-20), conversions,
    backlinks and priority lists, each explained."""
    top = {
        k: max((getattr(s, k) or 0.0) for s in signals.values()) if signals else 0.0
        for k in ("clicks", "impressions", "conversions", "backlinks")
    }
    out = {}
    for url, s in signals.items():
        notes: list[str] = []
        traffic = max(
            _lognorm(s.clicks, top["clicks"]), 0.5 * _lognorm(s.impressions, top["impressions"])
        )
        striking = 0.0
        if s.position is not None and STRIKING_DISTANCE[0] <= s.position <= STRIKING_DISTANCE[1]:
            striking = 1.0
            notes.append(f"in striking distance (position {s.position:.1f})")
        conversions = _lognorm(s.conversions, top["conversions"])
        if conversions > 0:
            notes.append(f"{s.conversions:g} conversions")
        backlinks = _lognorm(s.backlinks, top["backlinks"])
        if backlinks > 0.5:
            notes.append(f"{s.backlinks:g} referring domains")
        priority = min(1.0, s.priority or 0.0)
        if priority > 0:
            notes.append("a priority page")
        if traffic > 0.5:
            notes.append("high search traffic")
        value = (
            0.25 * traffic + 0.25 * striking + 0.2 * conversions + 0.1 * backlinks + 0.3 * priority
        )
        out[url] = BusinessValue(round(min(1.0, value), 6), notes)
    return out


def save_signals(db_path: str | Path, kind: str, signals: list[PageSignals], source: str) -> int:
    """Replace every imported row of ``kind`` in one transaction."""
    from linkpipe.lib.storage import execute, open_db, transaction

    with open_db(db_path) as con, transaction(con):
        execute(con, "write/delete_signals_of_kind", [kind])
        for s in signals:
            row = [s.url, s.clicks, s.impressions, s.position, s.conversions, s.backlinks]
            execute(con, "write/insert_signal", [kind, *row, s.priority, source])
    return len(signals)


def load_business_values(
    con: duckdb.DuckDBPyConnection, crawl_urls: list[str]
) -> dict[str, BusinessValue]:
    """Business values of the crawl's pages from every imported signal."""
    from linkpipe.lib.storage import fetch_dicts

    signals = [PageSignals(**row) for row in fetch_dicts(con, "read/select_all_signals")]
    return business_values(match_urls(signals, crawl_urls)) if signals else {}
