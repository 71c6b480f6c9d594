"""How a page's HTML is kept: zlib-compressed UTF-8, in the ``html_z`` column and in the file of
the previous crawl's pages handed to the crawler (a 304's HTML is stored again as it was)."""

from __future__ import annotations

import zlib


def compress_html(html: str) -> bytes:
    """zlib-compressed UTF-8 HTML for the ``html_z`` column."""
    return zlib.compress(html.encode("utf-8"), 6)


def decompress_html(blob: bytes | None) -> str:
    """Inverse of :func:`compress_html` (empty string for NULL)."""
    return zlib.decompress(blob).decode("utf-8") if blob else ""
