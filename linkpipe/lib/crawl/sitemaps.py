"""Sitemap parsing: urlsets, sitemap indexes, gzipped files and plain-text URL lists."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from scrapy.utils.gz import gunzip

MAX_SITEMAP_BYTES = 50 * 1024 * 1024  # the protocol's limit for one uncompressed file

_ENTRY_RE = re.compile(rb"<(?:\w+:)?(url|sitemap)\b[^>]*>(.*?)</(?:\w+:)?\1\s*>", re.S | re.I)
_LOC_RE = re.compile(
    rb"<(?:\w+:)?loc\b[^>]*>\s*(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?\s*</(?:\w+:)?loc>", re.S | re.I
)
_LASTMOD_RE = re.compile(rb"<(?:\w+:)?lastmod\b[^>]*>\s*(.*?)\s*</(?:\w+:)?lastmod>", re.S | re.I)


@dataclass
class Sitemap:
    """One parsed sitemap file."""

    is_index: bool = False
    urls: list[tuple[str, str]] = field(default_factory=list)  # (loc, lastmod) of pages
    sitemaps: list[str] = field(default_factory=list)  # child sitemaps of an index


def ungzip_if_needed(body: bytes) -> bytes:
    """Gunzip bodies that are still gzip (``.xml.gz`` served without Content-Encoding)."""
    if body[:2] == b"\x1f\x8b":
        return gunzip(body, max_size=MAX_SITEMAP_BYTES)
    return body


def parse_sitemap(body: bytes) -> Sitemap:
    """Parse a sitemap body (gzipped or not); unreadable input gives an empty Sitemap."""
    try:
        body = ungzip_if_needed(body)
    except (OSError, EOFError, ValueError):
        return Sitemap()
    head = body[:2048].lstrip().lower()
    result = Sitemap(is_index=b"<sitemapindex" in body[:4096].lower())
    if not head.startswith(b"<") and not result.is_index:
        for line in body.decode("utf-8", "replace").splitlines():
            line = line.strip()
            if line.startswith(("http://", "https://")):
                result.urls.append((line, ""))
        return result
    for match in _ENTRY_RE.finditer(body):
        loc_match = _LOC_RE.search(match.group(2))
        if not loc_match:
            continue
        loc = html.unescape(loc_match.group(1).decode("utf-8", "replace")).strip()
        if match.group(1).lower() == b"sitemap":
            result.sitemaps.append(loc)
        else:
            lastmod = _LASTMOD_RE.search(match.group(2))
            result.urls.append(
                (loc, lastmod.group(1).decode("ascii", "replace") if lastmod else "")
            )
    return result
