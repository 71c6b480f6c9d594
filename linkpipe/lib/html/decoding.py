"""Raw HTML bytes to text the way browsers do it, with w3lib: BOM, the HTTP header's charset,
``<meta charset>`` or the XML declaration, then UTF-8 if the bytes are UTF-8, then detection."""

from __future__ import annotations

import codecs
import re

import charset_normalizer
from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    to_unicode,
)


def _detect_charset(body: bytes) -> str | None:
    """For a body that declares no charset: UTF-8 when it decodes as UTF-8, else
    charset-normalizer's guess, preferring windows-1252 (the web's legacy default) on near ties."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"
    results = list(charset_normalizer.from_bytes(body[:262_144]))
    if not results:
        return None
    best = min(results, key=lambda m: m.chaos)
    for match in results:
        if match.encoding == "cp1252" and match.chaos <= best.chaos + 0.15:
            return "cp1252"
    return str(best.encoding)


def _charset_name(codec: str) -> str:
    """The name a page's charset is recorded under: ``windows-125x`` for Python's ``cp125x``,
    ``utf-16``/``utf-32`` whatever the byte order."""
    name = codecs.lookup(codec).name
    if name.startswith(("utf-16", "utf-32")):
        return name[:6]
    return re.sub(r"^cp(125\d)$", r"windows-\1", name)


# UTF-32's byte order marks (LE first: its mark begins with UTF-16 LE's)
_UTF32_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"))


def _utf32_text(body: bytes) -> str | None:
    """The text of a body that starts with a UTF-32 byte order mark, else None. w3lib 2.6
    reads the WHATWG's marks only (UTF-32 LE's as UTF-16 LE's: every other character a NUL);
    2.5 read these too, and a UTF-32 page is text a crawl should keep."""
    for bom, codec in _UTF32_BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, errors="replace")
    return None


def decode_body(body: bytes, content_type_header: str = "") -> tuple[str, str]:
    """Decode an HTML body the way browsers do (w3lib's parts): BOM (UTF-32's too), then the
    header's charset, then ``<meta>``/XML declaration, then UTF-8 if it decodes, then
    detection; latin-1 and ASCII labels read as windows-1252. Returns ``(text, charset
    name)``. (``html_to_unicode`` did this with a default encoding and our detection, which
    w3lib 2.6 deprecates.)"""
    utf32 = _utf32_text(body)
    if utf32 is not None:
        return utf32, "utf-32"
    codec, mark = read_bom(body)
    if codec is not None and mark is not None:
        return to_unicode(body[len(mark) :], codec), _charset_name(codec)
    codec = http_content_type_encoding(content_type_header)
    if codec is None:
        codec = html_body_declared_encoding(body)
        if codec and codec.startswith(("utf-16", "utf-32")):
            codec = "utf-8"  # such a <meta> is ASCII, not UTF-16
    codec = codec or _detect_charset(body) or "utf-8"
    return to_unicode(body, codec), _charset_name(codec)
