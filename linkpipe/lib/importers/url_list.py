"""URL lists to crawl: a text file with one URL per line, or a sitemap (gzipped or not).

Text lists ignore blank lines and lines starting with ``#``. A sitemap is a ``<urlset>`` or a
``<sitemapindex>`` whose children are files next to it (``<loc>`` ends with their file name).
Every URL must be an absolute http(s) URL; anything else raises :class:`ImportFormatError` with the
line number. Fetching the URLs is the crawler's job.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from urllib.parse import unquote, urlsplit
from xml.parsers import expat

from linkpipe.lib.importers.errors import ImportFormatError
from linkpipe.lib.urls import normalize_url

MAX_BYTES = 50 * 1024 * 1024  # the sitemap protocol's limit for one uncompressed file
MAX_INDEX_DEPTH = 3  # sitemap index -> child index -> ... (the protocol allows one level)
ROOTS = ("urlset", "sitemapindex")


def read_url_list(path: Path) -> list[str]:
    """The URLs of a list or sitemap file, as written (stripped), first occurrence of each."""
    path = Path(path)
    urls: list[str] = []
    seen: set[str] = set()
    for url, normalized in _read_file(path, path.name, 0, set()):
        if normalized not in seen:
            seen.add(normalized)
            urls.append(url)
    if not urls:
        raise ImportFormatError(path.name, None, None, "no URLs found")
    return urls


def _check_url(name: str, line: int, value: str) -> tuple[str, str]:
    """``(value, normalized)``, or an error naming the line."""
    message = f"expected an absolute http(s) URL, got {value!r}"
    if any(c.isspace() for c in value):
        raise ImportFormatError(name, line, None, message + " (it contains whitespace)")
    try:
        normalized = normalize_url(value)
    except ValueError:
        raise ImportFormatError(name, line, None, message) from None
    if not normalized.startswith(("http://", "https://")) or not urlsplit(normalized).hostname:
        raise ImportFormatError(name, line, None, message)
    return value, normalized


def _load(path: Path, name: str) -> bytes:
    if not path.is_file():
        raise ImportFormatError(name, None, None, f"file not found: {path}")
    with path.open("rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise ImportFormatError(name, None, None, f"broken gzip data ({exc})") from None
    if len(data) > MAX_BYTES:
        raise ImportFormatError(name, None, None, f"larger than {MAX_BYTES} bytes uncompressed")
    return data


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ImportFormatError(
            name, line, None, f"byte 0x{data[exc.start]:02x} is not valid UTF-8"
        ) from None


def _read_file(path: Path, name: str, level: int, visited: set[Path]) -> list[tuple[str, str]]:
    visited.add(path.resolve())
    text = _decode(_load(path, name), name)
    if text.lstrip().startswith("<"):
        return _read_sitemap(path, name, text, level, visited)
    found: list[tuple[str, str]] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            found.append(_check_url(name, number, line))
    return found


def _child_path(parent: Path, loc: str) -> Path:
    """The local file a ``<sitemap><loc>`` names: its last path segment, next to the index."""
    file_name = unquote(urlsplit(loc).path.rsplit("/", 1)[-1]) if "://" in loc else Path(loc).name
    return parent.parent / file_name


def _read_sitemap(
    path: Path, name: str, text: str, level: int, visited: set[Path]
) -> list[tuple[str, str]]:
    parser = expat.ParserCreate(namespace_separator=" ")
    stack: list[str] = []
    locs: list[tuple[int, str]] = []  # (line, text) of every <loc> under <url> or <sitemap>
    buffer: list[str] = []
    state = {"root": "", "loc_line": 0}

    def fail(message: str) -> ImportFormatError:
        return ImportFormatError(name, parser.CurrentLineNumber, None, message)

    def start(tag: str, _attrs: dict[str, str]) -> None:
        local = tag.rsplit(" ", 1)[-1]
        if not stack:
            if local not in ROOTS:
                raise fail(f"expected <urlset> or <sitemapindex>, got <{local}>")
            state["root"] = local
        stack.append(local)
        if local == "loc" and len(stack) == 3 and stack[1] in ("url", "sitemap"):
            buffer.clear()
            state["loc_line"] = parser.CurrentLineNumber

    def end(_tag: str) -> None:
        if stack[-1] == "loc" and len(stack) == 3 and stack[1] in ("url", "sitemap"):
            locs.append((state["loc_line"], "".join(buffer).strip()))
        stack.pop()

    def data(chunk: str) -> None:
        if stack and stack[-1] == "loc":
            buffer.append(chunk)

    def doctype(*_args: object) -> None:
        raise fail("a DOCTYPE is not allowed in a sitemap")

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler, parser.StartDoctypeDeclHandler = data, doctype
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        reason = expat.errors.messages[exc.code]
        raise ImportFormatError(
            name, exc.lineno, None, f"not well-formed XML: {reason} at column {exc.offset + 1}"
        ) from None
    if state["root"] == "urlset":
        return [_check_url(name, line, loc) for line, loc in locs]
    if level >= MAX_INDEX_DEPTH:
        raise ImportFormatError(name, None, None, "sitemap indexes nested too deep")
    found: list[tuple[str, str]] = []
    for line, loc in locs:
        child = _child_path(path, loc)
        if not loc or not child.name or not child.is_file():
            raise ImportFormatError(
                name,
                line,
                None,
                f"child sitemap {loc!r} not found next to {name} "
                f"(expected {child.name or '?'!r} in {path.parent})",
            )
        if child.resolve() in visited:
            continue
        found.extend(_read_file(child, child.name, level + 1, visited))
    return found
