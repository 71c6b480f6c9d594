"""Sitemaps, the one parser for the crawler and the URL-list importer: ``<urlset>``,
``<sitemapindex>``, gzipped files and plain-text URL lists, within the protocol's limits.

:func:`read_sitemap` is strict (an importer must reject bad input: it raises
:class:`SitemapError` with the line); :func:`parse_sitemap` is lenient (a crawler takes what a
site serves: it keeps the entries read before a problem and never raises). Both read with
expat, which expands no entities: a DOCTYPE is refused.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from dataclasses import dataclass, field
from typing import BinaryIO
from xml.parsers import expat

MAX_SITEMAP_BYTES = 50 * 1024 * 1024  # the protocol's limit for one uncompressed file
MAX_SITEMAP_FILES = 1000  # sitemap files one crawl reads (indexes and their children)
MAX_SITEMAP_URLS = 2_000_000  # page URLs one crawl takes from sitemaps
MAX_INDEX_DEPTH = 3  # sitemap index -> child index -> ... (the protocol allows one level)
ROOTS = ("urlset", "sitemapindex")
ENTRIES = ("url", "sitemap")  # children of the root; each has a <loc> and maybe a <lastmod>
_GZIP_MAGIC = b"\x1f\x8b"
_LINE_BREAK_RE = re.compile(r"\r\n?|\n")


class SitemapError(ValueError):
    """A sitemap or URL list that cannot be read; ``line`` is 1-based (None: the whole file)."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


@dataclass
class SitemapEntry:
    """One ``<url>`` or ``<sitemap>`` of a sitemap, or one line of a text list."""

    loc: str  # stripped text of <loc> (entities and CDATA resolved)
    lastmod: str = ""
    line: int = 0  # line of the <loc> (or of the text line)


@dataclass
class Sitemap:
    """One parsed sitemap file."""

    is_index: bool = False  # the root is <sitemapindex>
    is_xml: bool = False  # False: a plain-text list, one URL per line
    urls: list[SitemapEntry] = field(default_factory=list)  # pages (<url>, text lines)
    sitemaps: list[SitemapEntry] = field(default_factory=list)  # children (<sitemap>)
    error: str = ""  # lenient parse only: the problem it stopped at ("" when none)


def sitemap_bytes(source: bytes | BinaryIO, strict: bool = True) -> bytes:
    """The content of a sitemap file, gunzipped when it is gzip (``.xml.gz`` served without
    Content-Encoding), at most :data:`MAX_SITEMAP_BYTES`. Not strict: a truncated gzip gives
    what it holds, an oversized file its first :data:`MAX_SITEMAP_BYTES`."""
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    magic = stream.read(2)
    stream.seek(-len(magic), io.SEEK_CUR)
    data = _gunzip(stream, strict) if magic == _GZIP_MAGIC else stream.read(MAX_SITEMAP_BYTES + 1)
    if len(data) > MAX_SITEMAP_BYTES:
        if strict:
            raise SitemapError(None, f"larger than {MAX_SITEMAP_BYTES} bytes uncompressed")
        data = data[:MAX_SITEMAP_BYTES]
    return data


def _gunzip(stream: BinaryIO, strict: bool) -> bytes:
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=stream) as unzipped:
            while len(out) <= MAX_SITEMAP_BYTES and (chunk := unzipped.read1(1 << 16)):
                out += chunk
    except (OSError, EOFError, zlib.error) as exc:
        if strict or not out:
            raise SitemapError(None, f"broken gzip data ({exc})") from None
    return bytes(out)


def read_sitemap(source: bytes | BinaryIO) -> Sitemap:
    """Parse a sitemap or text list strictly: raises :class:`SitemapError` for a broken gzip, an
    oversized file, invalid UTF-8, XML that is not well-formed, another root than ``<urlset>`` or
    ``<sitemapindex>``, or a DOCTYPE. Text lists skip blank lines and ``#`` comments; URLs are
    returned as written (checking them is the caller's job)."""
    data = sitemap_bytes(source, strict=True)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SitemapError(line, f"byte 0x{data[exc.start]:02x} is not valid UTF-8") from None
    sitemap = Sitemap(is_xml=text.lstrip().startswith("<"))
    if sitemap.is_xml:
        _parse_xml(text, sitemap)
    else:
        sitemap.urls = _text_entries(text)
    return sitemap


def parse_sitemap(body: bytes) -> Sitemap:
    """Parse a fetched sitemap leniently: whatever can be read, never an exception. Invalid UTF-8
    is replaced; XML stops at its first error, keeping the entries before it; text lists keep
    only their http(s) lines. ``error`` tells what was wrong, if anything."""
    try:
        data = sitemap_bytes(body, strict=False)
    except SitemapError as exc:
        return Sitemap(error=str(exc))
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    sitemap = Sitemap(is_xml=text.lstrip().startswith("<"))
    if not sitemap.is_xml:
        sitemap.urls = [
            entry
            for entry in _text_entries(text)
            if entry.loc.lower().startswith(("http://", "https://"))
        ]
        return sitemap
    try:
        _parse_xml(text, sitemap)
    except SitemapError as exc:  # keep what was read before the error
        sitemap.error = str(exc)
    sitemap.urls = [entry for entry in sitemap.urls if entry.loc]
    sitemap.sitemaps = [entry for entry in sitemap.sitemaps if entry.loc]
    return sitemap


def _text_entries(text: str) -> list[SitemapEntry]:
    entries: list[SitemapEntry] = []
    for number, raw in enumerate(_LINE_BREAK_RE.split(text), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            entries.append(SitemapEntry(line, "", number))
    return entries


class _Reader:
    """expat handlers filling a :class:`Sitemap` as the parse goes (so a lenient caller keeps
    the entries before an error)."""

    def __init__(self, parser: expat.XMLParserType, sitemap: Sitemap) -> None:
        self.parser = parser
        self.sitemap = sitemap
        self.stack: list[str] = []  # local names of the open elements
        self.entry: SitemapEntry | None = None  # the <url>/<sitemap> being read
        self.buffer: list[str] = []  # text of the open <loc>/<lastmod>

    def fail(self, message: str) -> SitemapError:
        return SitemapError(self.parser.CurrentLineNumber, message)

    def start(self, tag: str, _attrs: dict[str, str]) -> None:
        local = tag.rsplit(" ", 1)[-1]
        if not self.stack:
            if local not in ROOTS:
                raise self.fail(f"expected <urlset> or <sitemapindex>, got <{local}>")
            self.sitemap.is_index = local == "sitemapindex"
        self.stack.append(local)
        if len(self.stack) == 2 and local in ENTRIES:
            self.entry = SitemapEntry("")
        elif len(self.stack) == 3 and self.entry is not None and local in ("loc", "lastmod"):
            self.buffer.clear()
            if local == "loc" and not self.entry.line:
                self.entry.line = self.parser.CurrentLineNumber

    def end(self, _tag: str) -> None:
        local = self.stack.pop()
        if len(self.stack) <= 1:  # an entry (or the root) closed
            self.entry = None
        elif len(self.stack) == 2 and self.entry is not None:
            if local == "lastmod":
                self.entry.lastmod = "".join(self.buffer).strip()
            elif local == "loc":
                self._add(self.entry, "".join(self.buffer).strip())

    def _add(self, entry: SitemapEntry, loc: str) -> None:
        """An entry counts once its first <loc> is read."""
        entries = self.sitemap.urls if self.stack[1] == "url" else self.sitemap.sitemaps
        if not entries or entries[-1] is not entry:
            entry.loc = loc
            entries.append(entry)

    def data(self, chunk: str) -> None:
        if len(self.stack) == 3 and self.entry is not None:
            self.buffer.append(chunk)

    def doctype(self, *_args: object) -> None:
        raise self.fail("a DOCTYPE is not allowed in a sitemap")


def _parse_xml(text: str, sitemap: Sitemap) -> None:
    parser = expat.ParserCreate(namespace_separator=" ")
    reader = _Reader(parser, sitemap)
    parser.StartElementHandler, parser.EndElementHandler = reader.start, reader.end
    parser.CharacterDataHandler, parser.StartDoctypeDeclHandler = reader.data, reader.doctype
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        reason = expat.errors.messages[exc.code]
        message = f"not well-formed XML: {reason} at column {exc.offset + 1}"
        raise SitemapError(exc.lineno, message) from None
