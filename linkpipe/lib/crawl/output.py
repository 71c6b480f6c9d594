"""The worker's files: pages.jsonl, raw links (reclassified into links.jsonl at the end), each
page's stored parse (parses.jsonl), and the previous crawl's pages for conditional requests
(:func:`write_previous` writes that file, :class:`PreviousCrawl` reads it lazily)."""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, cast

from linkpipe.lib.crawl.config import PAGES_FILE, PARSES_FILE, PreviousPage
from linkpipe.lib.crawl.stored_parse import link_line
from linkpipe.lib.html.stored import compress_html, decompress_html
from linkpipe.lib.records import LinkRecord, PageRecord
from linkpipe.lib.urls import normalize_url

RAW_LINKS_FILE = "links.raw.jsonl"


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # reused: faster


def _dumps(row: dict[str, Any]) -> str:
    return _encode(row) + "\n"


class CrawlOutput:
    """Appends records to the output files and keeps the counters for stats.json."""

    def __init__(
        self, out_dir: Path, append: bool = False, tallies: tuple[Counter[str], ...] | None = None
    ) -> None:
        mode = "a" if append else "w"
        self.out_dir = out_dir
        self._pages: IO[str] = (out_dir / PAGES_FILE).open(mode, encoding="utf-8")
        self._links: IO[str] = (out_dir / RAW_LINKS_FILE).open(mode, encoding="utf-8")
        self._parses: IO[str] = (out_dir / PARSES_FILE).open(mode, encoding="utf-8")
        self.counts, self.status, self.errors = tallies or (Counter(), Counter(), Counter())

    @property
    def tallies(self) -> tuple[Counter[str], ...]:
        """The counters, for a resumable crawl's saved state."""
        return self.counts, self.status, self.errors

    def page(self, record: PageRecord) -> None:
        """Write one page record."""
        self._pages.write(_dumps(dict(record.__dict__)))
        self.counts["pages"] += 1
        self.status[str(record.status)] += 1
        if record.error:
            self.errors[record.error] += 1
        if record.html or record.not_modified:  # a 304's HTML is the previous crawl's
            self.counts["html_pages"] += 1
        for flag in ("truncated", "not_modified", "in_sitemap"):
            if getattr(record, flag):
                self.counts[flag] += 1

    def links(self, links: list[LinkRecord]) -> None:
        """Write one page's links (consecutive lines, as template detection expects)."""
        self.links_text("".join(link_line(link) for link in links), len(links))

    def links_text(self, text: str, count: int) -> None:
        """Write one page's ``count`` links, already as lines of the links file."""
        if text:
            self._links.write(text)
            self.counts["links"] += count

    def parse(self, url: str, content_hash: str, blob: bytes | None) -> None:
        """Record the stored parse of the page at ``url`` (HTML of ``content_hash``): ``blob``,
        or None when the page took the previous crawl's (a 304)."""
        row: dict[str, Any] = {"url": url, "content_hash": content_hash}
        if blob is not None:
            row["parse_z"] = base64.b64encode(blob).decode("ascii")
        self._parses.write(_dumps(row))

    def close(self) -> None:
        self._pages.close()
        self._links.close()
        self._parses.close()


class PreviousCrawl:
    """Validators of the previous crawl in memory; its HTML stays on disk until a 304 needs it.

    The file :func:`write_previous` writes holds one small JSON line a page (no HTML), and the
    HTML of every page, compressed as ``html_z`` stores it, follows in a second file
    (``<name>.html``): building the index decodes no HTML (API reference pages run to hundreds
    of kilobytes). Each file is opened once, at the first read of it (a refresh reads both for
    every page that answers 304), and closed by :meth:`close`."""

    def __init__(self, path: Path | None, normalize_kwargs: dict[str, Any]) -> None:
        self.path = path
        self.index: dict[str, tuple[str, str, int]] = {}  # url -> (etag, last_modified, offset)
        self._files: dict[Path, IO[bytes]] = {}
        if path is None or not path.exists():
            return
        with path.open("rb") as handle:
            offset = 0
            for line in handle:
                row = json.loads(line)
                try:
                    url = normalize_url(row["url"], **normalize_kwargs)
                except (KeyError, ValueError):
                    offset += len(line)
                    continue
                etag, modified = row.get("etag") or "", row.get("last_modified") or ""
                if (etag or modified) and row.get("html_at", (0, 0))[1]:
                    self.index[url] = (etag, modified, offset)
                offset += len(line)

    def headers(self, url: str) -> dict[str, str]:
        """Conditional request headers for ``url`` (empty when nothing is known)."""
        entry = self.index.get(url)
        if entry is None:
            return {}
        headers = {}
        if entry[0]:
            headers["If-None-Match"] = entry[0]
        if entry[1]:
            headers["If-Modified-Since"] = entry[1]
        return headers

    def row(self, url: str) -> PreviousPage | None:
        """The previous crawl's page at ``url`` (where its HTML and parse lie, not them),
        read from disk."""
        page = self._line(url)
        return cast(PreviousPage, page) if page is not None else None

    def html(self, page: PreviousPage) -> str:
        """The HTML of a page :meth:`row` returned."""
        return decompress_html(self._blob(page["html_at"]))

    def parse_z(self, page: PreviousPage) -> bytes:
        """The stored parse of a page :meth:`row` returned (empty when it has none)."""
        at = page.get("parse_at")
        return self._blob(at) if at else b""

    def carried(self, url: str) -> tuple[bytes | None, bytes | None]:
        """(compressed HTML, stored parse) of ``url`` when the previous crawl kept them in its
        own rows (earlier code: ``carry``), for a 304 to store by content; (None, None) when
        they are stored by content already (or unknown)."""
        page = self._line(url)
        if page is None or not page.get("carry"):
            return None, None
        return self._blob(page["html_at"]), self.parse_z(cast(PreviousPage, page)) or None

    def _line(self, url: str) -> dict[str, Any] | None:
        entry = self.index.get(url)
        if entry is None or self.path is None:
            return None
        handle = self._file(self.path)
        handle.seek(entry[2])
        line: dict[str, Any] = json.loads(handle.readline())
        return line

    def _blob(self, at: list[int] | tuple[int, int]) -> bytes:
        assert self.path is not None
        handle = self._file(_html_path(self.path))
        handle.seek(at[0])
        return handle.read(at[1])

    def _file(self, path: Path) -> IO[bytes]:
        if path not in self._files:
            self._files[path] = path.open("rb")
        return self._files[path]

    def close(self) -> None:
        """Close the files read so far (a later read opens them again)."""
        for handle in self._files.values():
            handle.close()
        self._files.clear()


def _html_path(path: Path) -> Path:
    return path.with_name(path.name + ".html")


def write_previous(pages: Iterable[tuple[str, PreviousPage]], path: Path) -> int:
    """Write ``(url, page)`` pairs of the previous crawl as the files :class:`PreviousCrawl`
    reads (one ``{"url": ..., **page, "html_at": [offset, bytes], "parse_at": ...}`` line a
    page, its compressed HTML (``html_z``, or ``html`` compressed) and stored parse
    (``parse_z``, when it has one) in the ``.html`` file beside); returns how many were
    written."""
    written = 0
    with path.open("w", encoding="utf-8") as handle, _html_path(path).open("wb") as blobs:
        for url, page in pages:
            fields: dict[str, Any] = dict(page)
            text, blob = fields.pop("html", ""), fields.pop("html_z", None)
            parse_z = fields.pop("parse_z", None)
            html = blob if blob is not None else (compress_html(text) if text else b"")
            fields["html_at"] = [blobs.tell(), len(html)]
            blobs.write(html)
            if parse_z:
                fields["parse_at"] = [blobs.tell(), len(parse_z)]
                blobs.write(parse_z)
            handle.write(_dumps({**fields, "url": url}))
            written += 1
    return written
