"""WARC files (gzipped per record, gzipped whole, or plain) -> page and link records.

Every ``response`` record of an http(s) URL becomes a :class:`PageRecord`, filled the way the
crawler fills it: header fields, redirect hops, HTML decoded with ``decode_body`` and parsed with
``parse_page``, ``content_hash`` = ``text_hash`` of the decoded HTML. Links are internal when their host is
the host of some HTML response in the file. Depth is the link distance from the start URL (the first
home page in the file, else its first response); pages no link reaches count as seeds (depth 1).
"""

from __future__ import annotations

import gzip
import io
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from linkpipe.lib.crawl.fetch import looks_like_html
from linkpipe.lib.hashing import text_hash
from linkpipe.lib.html.decoding import decode_body
from linkpipe.lib.html.parse import parse_page
from linkpipe.lib.html.templates import reclassify_template_links
from linkpipe.lib.importers.csv_table import Notes
from linkpipe.lib.importers.errors import ImportFormatError
from linkpipe.lib.importers.model import ImportedCrawl
from linkpipe.lib.records import LinkRecord, PageRecord
from linkpipe.lib.urls import normalize_url, url_host

_TRUNCATED = "truncated record: the file ends inside it"
_GZIP_WHOLE = "non-chunked gzip"  # warcio's message for a file gzipped as one member


@dataclass
class _Response:
    """One HTTP response record, as read from the file."""

    offset: int
    url: str
    original_url: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    date: str
    truncated: bool


def _header(headers: list[tuple[str, str]], name: str) -> str:
    name = name.lower()
    return ", ".join(v.strip() for k, v in headers if k.lower() == name and v.strip())


def _iso(value: str) -> str:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat(timespec="seconds")
    except ValueError:
        return ""


def _response(record: Any, offset: int, name: str) -> _Response | None:
    """The response a record holds (None for requests, metadata, dns: records...)."""
    uri = record.rec_headers.get_header("WARC-Target-URI") or ""
    http = record.http_headers
    if record.rec_type != "response" or http is None or not uri.startswith("http"):
        return None
    body = record.content_stream().read()
    status_text = (http.get_statuscode() or "").strip()
    if not status_text.isdigit():
        raise ImportFormatError(
            name,
            offset,
            None,
            f"no valid HTTP status line for {uri} ({http.statusline!r})",
            unit="offset",
        )
    try:
        url = normalize_url(uri)
    except ValueError:
        raise ImportFormatError(
            name, offset, None, f"unusable WARC-Target-URI {uri!r}", unit="offset"
        ) from None
    return _Response(
        offset,
        url,
        uri,
        int(status_text),
        list(http.headers),
        body,
        _iso(record.rec_headers.get_header("WARC-Date") or ""),
        bool(record.rec_headers.get_header("WARC-Truncated")),
    )


def _responses(handle: io.BufferedIOBase, name: str, notes: Notes) -> list[_Response]:
    """Every response of an open WARC; the whole file must parse, up to its last byte."""
    from warcio.archiveiterator import ArchiveIterator  # noqa: PLC0415 - optional dependency

    iterator = ArchiveIterator(handle)
    offset, found = 0, []
    try:
        for record in iterator:
            if record.rec_type == "revisit":
                notes.add(
                    "revisit", f"{name}: revisit records (repeats of earlier responses) skipped"
                )
            response = _response(record, offset, name)
            if response is not None:
                found.append(response)
            iterator.get_record_offset()  # reads to the record's end; ``offset`` moves on
            if getattr(record.raw_stream, "limit", 0) > 0:  # fewer bytes than Content-Length
                raise ImportFormatError(name, offset, None, _TRUNCATED, unit="offset")
            offset = iterator.offset
        leftover = handle.read(1)
    except ImportFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - warcio raises many kinds for broken input
        text = str(exc).strip()
        if _GZIP_WHOLE in text:
            message = _GZIP_WHOLE
        elif exc.__class__.__name__ == "ArchiveLoadFailed":
            message = text.splitlines()[0]
        else:
            message = f"unreadable record ({type(exc).__name__}: {text})"
        raise ImportFormatError(name, offset, None, message, unit="offset") from exc
    if leftover or offset < handle.tell():
        raise ImportFormatError(name, offset, None, _TRUNCATED, unit="offset")
    return found


def _read_all(path: Path, notes: Notes) -> list[_Response]:
    attempt = Notes()  # discarded when the file must be read again
    with path.open("rb") as handle:
        try:
            found = _responses(handle, path.name, attempt)
        except ImportFormatError as exc:
            if exc.message != _GZIP_WHOLE:
                raise
        else:
            notes.first.update(attempt.first)
            notes.count.update(attempt.count)
            return found
    notes.add("gzip", f"{path.name} is gzipped as a whole, not per record; read it anyway")
    with gzip.open(path, "rb") as handle:
        return _responses(handle, path.name, notes)


def _page(response: _Response, hosts: set[str]) -> tuple[PageRecord, list[LinkRecord], str]:
    """The record, its links and the next hop ("" when the response does not redirect)."""
    headers = response.headers
    content_type_header = _header(headers, "Content-Type")
    record = PageRecord(
        url=response.url,
        original_url=response.original_url,
        final_url=response.url,
        status=response.status,
        content_type=content_type_header.split(";", 1)[0].strip().lower(),
        x_robots_tag=_header(headers, "X-Robots-Tag").lower(),
        etag=_header(headers, "ETag"),
        last_modified=_header(headers, "Last-Modified"),
        fetched_at=response.date,
        truncated=response.truncated,
    )
    location = _header(headers, "Location")
    if 300 <= record.status < 400 and record.status != 304 and location:
        return record, [], _hop(record.url, location)
    if not (200 <= record.status < 300 and looks_like_html(record.content_type, response.body)):
        return record, [], ""
    record.byte_size = len(response.body)
    html, record.charset = decode_body(response.body, content_type_header)
    record.content_type = record.content_type or "text/html"
    record.html, record.content_hash = html, text_hash(html)
    parsed = parse_page(html, record.url, hosts)
    record.title, record.h1 = parsed.title, parsed.h1
    record.meta_description, record.canonical = parsed.meta_description, parsed.canonical
    record.meta_robots, record.hreflang = parsed.meta_robots, parsed.hreflang
    record.page_type = parsed.page_type
    return record, parsed.links, parsed.meta_refresh if parsed.meta_refresh != record.url else ""


def _hop(url: str, location: str) -> str:
    try:
        target = normalize_url(location, url)
    except ValueError:
        return ""
    return target if target.startswith(("http://", "https://")) and target != url else ""


def _resolve_chains(pages: dict[str, PageRecord], hops: dict[str, str]) -> None:
    """Redirect chains through every hop the file holds; a chain that comes back is a loop."""
    for source in hops:
        chain, seen = [source], {source}
        current = source
        while current in hops:
            current = hops[current]
            chain.append(current)
            if current in seen:
                pages[source].redirect_loop, pages[source].error = True, "redirect_loop"
                break
            seen.add(current)
        pages[source].redirect_chain, pages[source].final_url = chain, chain[-1]


def _depths(
    start: str, pages: dict[str, PageRecord], edges: dict[str, list[str]], hops: dict[str, str]
) -> None:
    """Link distance from ``start``; a redirect hop keeps the depth (as in the crawler)."""
    depth = {start: 0}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        hop = hops.get(current)
        if hop and depth.get(hop, depth[current] + 1) > depth[current]:
            depth[hop] = depth[current]
            queue.appendleft(hop)
        for target in edges.get(current, []):
            if target not in depth:
                depth[target] = depth[current] + 1
                queue.append(target)
    for url, page in pages.items():
        page.depth = depth.get(url, 1)


def _site_hosts(responses: dict[str, _Response]) -> set[str]:
    """Hosts that served HTML (so a CDN that only served images is not the site); else all."""
    html_hosts = {
        url_host(url)
        for url, r in responses.items()
        if looks_like_html(
            _header(r.headers, "Content-Type").split(";", 1)[0].strip().lower(), r.body
        )
    }
    return html_hosts or {url_host(url) for url in responses}


def _start_url(order: list[str]) -> str:
    for url in order:
        parts = urlsplit(url)
        if parts.path == "/" and not parts.query:
            return url
    return order[0]


def read_warc(path: Path) -> ImportedCrawl:
    """Pages and links of a WARC file; raises :class:`ImportFormatError` for a broken file."""
    path = Path(path)
    try:
        import warcio  # noqa: F401, PLC0415 - only this importer needs it
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("reading WARC files needs the warcio package") from exc
    notes = Notes()
    responses: dict[str, _Response] = {}
    for response in _read_all(path, notes):
        if response.url in responses:
            notes.add(
                "duplicate",
                f"{path.name} offset {response.offset}: a second response "
                f"for {response.url} ignored (kept the first)",
            )
            continue
        responses[response.url] = response
    if not responses:
        raise ImportFormatError(path.name, None, None, "no HTTP response records")
    hosts = _site_hosts(responses)
    pages: dict[str, PageRecord] = {}
    links_by_page: dict[str, list[LinkRecord]] = {}
    hops: dict[str, str] = {}
    for url in list(responses):
        record, links, hop = _page(responses.pop(url), hosts)
        pages[url], links_by_page[url] = record, links
        if hop:
            hops[url] = hop
    _resolve_chains(pages, hops)
    reclassify_template_links({u: ls for u, ls in links_by_page.items() if pages[u].html})
    edges: dict[str, list[str]] = {
        url: [link.target_url for link in links if link.internal]
        for url, links in links_by_page.items()
    }
    start_url = _start_url(list(pages))
    _depths(start_url, pages, edges, hops)
    return ImportedCrawl(
        pages=list(pages.values()),
        links=[link for links in links_by_page.values() for link in links],
        start_url=start_url,
        warnings=notes.lines(),
    )


def read_warc_crawl(path: Path) -> ImportedCrawl:
    """:func:`read_warc` for an imported crawl, which needs an HTML page (as a crawl does):
    a file without one raises :class:`ImportFormatError` before anything is registered."""
    crawl = read_warc(path)
    if not any(page.html for page in crawl.pages):
        raise ImportFormatError(
            Path(path).name,
            None,
            None,
            f"no HTML page among its {len(crawl.pages)} HTTP responses (a 2xx answer of type "
            "text/html): nothing to find links in",
        )
    return crawl
