"""URL lists to crawl: a text file with one URL per line, or a sitemap (gzipped or not).

Text lists ignore blank lines and lines starting with ``#``. A sitemap is a ``<urlset>`` or a
``<sitemapindex>`` whose children are files next to it (``<loc>`` ends with their file name),
parsed by :mod:`linkpipe.lib.crawl.sitemaps` (the crawler's parser, in its strict mode).
Every URL must be an absolute http(s) URL; anything else raises :class:`ImportFormatError` with the
line number. Fetching the URLs is the crawler's job.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from linkpipe.lib.crawl.sitemaps import MAX_INDEX_DEPTH, SitemapError, read_sitemap
from linkpipe.lib.importers.errors import ImportFormatError
from linkpipe.lib.urls import normalize_url


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
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ImportFormatError(name, line, None, message + " (it contains control characters)")
    try:
        normalized = normalize_url(value)
        parts = urlsplit(normalized)
    except ValueError:
        raise ImportFormatError(name, line, None, message) from None
    if not normalized.startswith(("http://", "https://")) or not parts.hostname:
        raise ImportFormatError(name, line, None, message)
    if parts.username is not None:  # the crawler cannot fetch user:password@ URLs
        raise ImportFormatError(
            name, line, None, message + " (a user name or password in a URL is not supported)"
        )
    return value, normalized


def _child_path(parent: Path, loc: str) -> Path:
    """The local file a ``<sitemap><loc>`` names: its last path segment, next to the index."""
    file_name = unquote(urlsplit(loc).path.rsplit("/", 1)[-1]) if "://" in loc else Path(loc).name
    return parent.parent / file_name


def _read_file(path: Path, name: str, level: int, visited: set[Path]) -> list[tuple[str, str]]:
    """``(url, normalized)`` of a text list, a urlset, or every child of a sitemap index."""
    visited.add(path.resolve())
    if not path.is_file():
        raise ImportFormatError(name, None, None, f"file not found: {path}")
    try:
        with path.open("rb") as handle:
            sitemap = read_sitemap(handle)
    except SitemapError as exc:
        raise ImportFormatError(name, exc.line, None, exc.message) from None
    found = [_check_url(name, entry.line, entry.loc) for entry in sitemap.urls]
    if sitemap.is_index and level >= MAX_INDEX_DEPTH:
        raise ImportFormatError(name, None, None, "sitemap indexes nested too deep")
    for entry in sitemap.sitemaps:
        child = _child_path(path, entry.loc)
        if not entry.loc or not child.name or not child.is_file():
            raise ImportFormatError(
                name,
                entry.line,
                None,
                f"child sitemap {entry.loc!r} not found next to {name} "
                f"(expected {child.name or '?'!r} in {path.parent})",
            )
        if child.resolve() not in visited:
            found.extend(_read_file(child, child.name, level + 1, visited))
    return found
