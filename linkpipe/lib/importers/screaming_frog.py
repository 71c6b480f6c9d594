"""Screaming Frog SEO Spider exports: ``internal_all.csv`` (+ ``all_inlinks.csv``) -> records.

Columns are read by their Screaming Frog names, in any order; extra columns are ignored and only
``Address`` (``Source``/``Destination`` for inlinks) is required. An export holds no HTML, so
``html`` stays empty and ``content_hash`` is Screaming Frog's ``Hash`` column (its own body
hash, not the crawler's sha1 of the decoded HTML).
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from pathlib import Path

from linkpipe.lib.importers.csv_table import CsvTable, Notes, Row
from linkpipe.lib.importers.errors import ImportFormatError
from linkpipe.lib.importers.model import ImportedCrawl
from linkpipe.lib.records import NOFOLLOW_RELS, LinkPosition, LinkRecord, PageRecord
from linkpipe.lib.urls import (
    DEFAULT_STRIP_PARAMS,
    cached_normalize,
    is_crawlable_scheme,
    same_site,
    url_host,
)

PAGES_FILE = "internal_all.csv"
MAX_STATUS = 999  # HTTP status codes have three digits (0: no response)
INLINKS_FILE = "all_inlinks.csv"
# Screaming Frog "Link Position" -> LinkRecord.position
POSITIONS: dict[str, LinkPosition] = {
    "content": "content",
    "navigation": "navigation",
    "header": "header",
    "footer": "footer",
    "aside": "aside",
    "sidebar": "aside",
}
# "Status" of URLs that got no response (Status Code 0) -> the crawler's error kinds
STATUS_ERRORS = {
    "blocked by robots.txt": "robots_disallowed",
    "connection timeout": "timeout",
    "dns lookup failed": "dns",
    "connection refused": "connection_refused",
    "connection error": "connection_lost",
    "no response": "connection_lost",
}


def read_screaming_frog(folder: Path) -> ImportedCrawl:
    """Pages and links of a Screaming Frog export folder.

    Raises :class:`ImportFormatError` for a missing or malformed ``internal_all.csv`` or a
    malformed ``all_inlinks.csv``; a missing ``all_inlinks.csv`` only gives a warning.
    """
    folder = Path(folder)
    pages_path = folder / PAGES_FILE
    if not folder.is_dir():
        raise ImportFormatError(
            str(folder),
            None,
            None,
            "not a folder (expected a Screaming Frog export folder holding internal_all.csv)",
        )
    if not pages_path.is_file():
        raise ImportFormatError(
            PAGES_FILE,
            None,
            None,
            f"not found in {folder}: export Internal > All from Screaming Frog as CSV",
        )
    notes = Notes()
    pages, start_url = _read_pages(pages_path, notes)
    links: list[LinkRecord] = []
    inlinks_path = folder / INLINKS_FILE
    if inlinks_path.is_file():
        hosts = {url_host(page.url) for page in pages}
        links = _read_links(inlinks_path, hosts, notes)
    else:
        notes.add(
            "no_inlinks",
            f"{INLINKS_FILE} not found: no links imported (export "
            "Bulk Export > Links > All Inlinks as CSV)",
        )
    return ImportedCrawl(pages=pages, links=links, start_url=start_url, warnings=notes.lines())


@lru_cache(maxsize=100_000)
def _checked_absolute(value: str) -> str:
    """Normalized ``value`` when it is an absolute http(s) URL with a host, else ""."""
    try:
        url = cached_normalize(value, None, "keep", DEFAULT_STRIP_PARAMS)
    except ValueError:
        return ""
    return url if url.startswith(("http://", "https://")) and url_host(url) else ""


def _absolute_url(row: Row, column: str, value: str | None = None) -> str:
    value = row.text(column) if value is None else value
    url = _checked_absolute(value)
    if not url:
        raise row.error(column, f"expected an absolute http(s) URL, got {value!r}")
    return url


def _linked_url(row: Row, column: str, base: str, notes: Notes, value: str | None = None) -> str:
    """A URL cell resolved against ``base``; "" (with a warning) when unusable."""
    value = row.text(column) if value is None else value
    if not value:
        return ""
    absolute = value.startswith(("http://", "https://"))
    try:
        url = cached_normalize(value, None if absolute else base, "keep", DEFAULT_STRIP_PARAMS)
    except ValueError:
        url = ""
    if not url.startswith(("http://", "https://")):
        notes.add(
            f"bad_url:{column}",
            f"{row.table.name} line {row.line}: unusable {column} {value!r} ignored",
        )
        return ""
    return url


def _timestamp(row: Row, notes: Notes) -> str:
    value = row.text("Crawl Timestamp")
    if not value:
        return ""
    try:
        return datetime.fromisoformat(value).isoformat(timespec="seconds")
    except ValueError:
        notes.add(
            "timestamp",
            f"{row.table.name} line {row.line}: unreadable Crawl Timestamp {value!r} ignored",
        )
        return ""


def _numbered(row: Row, prefix: str) -> str:
    """ "Meta Robots 1", "Meta Robots 2"...: lower-cased and joined by ", " (as the crawler does)."""
    values, n = [], 1
    while row.table.position(f"{prefix} {n}") is not None:
        value = " ".join(row.text(f"{prefix} {n}").lower().split())
        if value:
            values.append(value)
        n += 1
    return ", ".join(values)


def _page(row: Row, notes: Notes) -> PageRecord:
    url = _absolute_url(row, "Address")
    content_type = row.text("Content Type")
    mime, _, params = content_type.partition(";")
    charset = params.partition("charset=")[2].strip().strip("\"'").lower()
    status = row.integer("Status Code", MAX_STATUS) or 0
    size = row.integer("Size (bytes)", 2**63 - 1)
    response_time = row.number("Response Time")
    record = PageRecord(
        url=url,
        original_url=row.text("Address"),
        status=status,
        content_type=mime.strip().lower(),
        charset=charset,
        title=" ".join(row.text("Title 1").split()),
        h1=" ".join(row.text("H1-1").split()),
        meta_description=" ".join(row.text("Meta Description 1").split()),
        meta_robots=_numbered(row, "Meta Robots"),
        x_robots_tag=_numbered(row, "X-Robots-Tag"),
        canonical=_linked_url(row, "Canonical Link Element 1", url, notes),
        content_hash=row.text("Hash").lower(),
        depth=row.integer("Crawl Depth") or 0,
        byte_size=size or 0,
        response_ms=round(response_time * 1000, 2) if response_time else 0.0,
        last_modified=row.text("Last Modified"),
        fetched_at=_timestamp(row, notes),
        final_url=url if status else "",
    )
    if status == 0:
        text = row.text("Status").lower()
        record.error = STATUS_ERRORS.get(text) or (
            "error:" + "_".join(text.split()) if text else "not fetched"
        )
    blocked = row.text("Indexability Status").lower() == "blocked by robots.txt"
    if record.error == "robots_disallowed" or (blocked and status == 0):
        record.robots_disallowed, record.error = True, "robots_disallowed"
    target = _linked_url(row, "Redirect URL", url, notes)
    if target:  # HTTP redirect, meta refresh, JavaScript redirect or HSTS: one known hop
        record.redirect_chain, record.final_url = [url, target], target
        if target == url:
            record.redirect_loop, record.error = True, "redirect_loop"
    return record


def _read_pages(path: Path, notes: Notes) -> tuple[list[PageRecord], str]:
    pages: dict[str, PageRecord] = {}
    depths: dict[str, int] = {}  # URL -> Crawl Depth, only where the cell is filled
    for row in CsvTable(path, ("Address",)):
        record = _page(row, notes)
        if record.url in pages:
            notes.add(
                "duplicate",
                f"{path.name} line {row.line}: {row.text('Address')!r} is "
                f"the same page as {pages[record.url].original_url!r} once normalized; "
                "kept the first row",
            )
            continue
        pages[record.url] = record
        if row.text("Crawl Depth"):
            depths[record.url] = record.depth
    if not pages:
        raise ImportFormatError(path.name, None, None, "no URLs in the export")
    start_url = min(depths, key=lambda u: depths[u]) if depths else next(iter(pages))
    return list(pages.values()), start_url


LINK_COLUMNS = ("Type", "Source", "Destination", "Anchor", "Alt Text", "Rel", "Follow")


def _link(row: Row, internal: dict[str, bool], hosts: set[str], notes: Notes) -> LinkRecord | None:
    """The link of one ``Hyperlink`` row (None for mailto:, javascript:... destinations)."""
    _, source_text, destination, anchor, alt, rel, follow = row.texts(LINK_COLUMNS)
    source = _absolute_url(row, "Source", source_text)
    absolute = destination.startswith(("http://", "https://"))
    if not destination or not (absolute or is_crawlable_scheme(destination)):
        return None
    target = _linked_url(row, "Destination", source, notes, destination)
    if not target:
        return None
    anchor, alt, rel = (
        " ".join(anchor.split()),
        " ".join(alt.split()),
        " ".join(rel.lower().split()),
    )
    return LinkRecord(
        source_url=source,
        target_url=target,
        anchor_text=anchor or alt,
        rel=rel,
        nofollow=not row.flag("Follow", True, follow)
        or bool(NOFOLLOW_RELS.intersection(rel.split())),
        position=_position(row, notes),
        is_image=not anchor and bool(alt),
        internal=_is_internal(target, internal, hosts),
    )


def _position(row: Row, notes: Notes) -> LinkPosition:
    text = row.text("Link Position")
    position = POSITIONS.get(text.lower())
    if position is None and text:
        notes.add(
            f"position:{text}",
            f"{row.table.name} line {row.line}: unknown Link Position {text!r} counted as content",
        )
    return position or "content"


def _is_internal(url: str, cache: dict[str, bool], hosts: set[str]) -> bool:
    netloc = url.split("/", 3)[2]
    if netloc not in cache:
        cache[netloc] = same_site(url, hosts)
    return cache[netloc]


def _read_links(path: Path, hosts: set[str], notes: Notes) -> list[LinkRecord]:
    links: list[LinkRecord] = []
    table = CsvTable(path, ("Source", "Destination"))
    internal: dict[str, bool] = {}  # netloc -> on one of the crawl's hosts
    for row in table:
        if table.position("Type") is not None:
            kind = row.text("Type")
            if kind != "Hyperlink" and kind.lower() != "hyperlink":
                continue  # images, canonicals, CSS, JavaScript, hreflang...: not page links
        link = _link(row, internal, hosts, notes)
        if link is not None:
            links.append(link)
    return links
