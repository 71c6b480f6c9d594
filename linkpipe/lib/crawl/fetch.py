"""Turning Scrapy responses and failures into PageRecord fields.

Scrapy is imported only where it runs (the crawler's process): the importers and the refresh's
conditional requests use the helpers that need none of it, and the runner process does not pay
~0.4 CPU-s importing Scrapy and Twisted for them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from linkpipe.lib.records import PageRecord

if TYPE_CHECKING:
    from scrapy.http import Request, Response
    from twisted.python.failure import Failure

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# error kind -> words for the one-line message when the start URL fails
ERROR_WORDS = {
    "timeout": "timed out",
    "dns": "host name could not be resolved",
    "connection_refused": "connection refused",
    "connection_lost": "connection lost before a complete response",
    "ssl": "TLS/SSL error",
    "too_large": "response too large",
}


def utc_now() -> str:
    """Current time, ISO-8601 UTC, seconds precision."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def failed_request(failure: Failure) -> Request:
    """The request of a failed download (Scrapy attaches it to the Failure it errbacks with)."""
    request: Request = failure.request  # type: ignore[attr-defined]
    return request


def header(response: Response, name: str) -> str:
    """All values of a response header joined by ", " (latin-1 decoded, stripped)."""
    values = response.headers.getlist(name)
    return ", ".join(v.decode("latin-1").strip() for v in values if v)


def mime_type(content_type: str) -> str:
    """``text/html; charset=x`` -> ``text/html``."""
    return content_type.split(";", 1)[0].strip().lower()


def looks_like_html(mime: str, body: bytes) -> bool:
    """HTML by declared type, or by sniffing when no type was sent."""
    if mime in HTML_TYPES:
        return True
    if mime:
        return False
    start = body[:512].lstrip().lower()
    return start.startswith((b"<!doctype html", b"<html", b"<head", b"<body"))


def fill_response_fields(record: PageRecord, response: Response) -> None:
    """Status, timing and the header-borne fields of a page record."""
    names = ("Content-Type", "ETag", "Last-Modified", "X-Robots-Tag")
    headers = {name.lower(): header(response, name) for name in names}
    latency = round(float(response.meta.get("download_latency", 0.0)) * 1000, 2)
    fill_answer_fields(record, response.status, headers, latency)
    record.fetched_at = utc_now()


def fill_answer_fields(
    record: PageRecord, status: int, headers: dict[str, str], response_ms: float
) -> None:
    """Status, timing and the header-borne fields of a page record, from an answer's status and
    headers (lower-cased names, repeated values joined by ", ")."""
    record.status = status
    record.response_ms = response_ms
    record.content_type = mime_type(headers.get("content-type", ""))
    record.etag = headers.get("etag", "")
    record.last_modified = headers.get("last-modified", "")
    record.x_robots_tag = headers.get("x-robots-tag", "").lower()


def classify_failure(failure: Failure) -> str:
    """A short error kind for a failed download ("timeout", "dns", "connection_refused"...)."""
    from scrapy.exceptions import IgnoreRequest  # the crawler's process has Scrapy loaded

    exc: Any = failure.value
    if isinstance(exc, IgnoreRequest):
        text = str(exc).lower()
        return "too_large" if "size" in text or "decompress" in text else "ignored"
    names = " ".join(cls.__name__ for cls in type(exc).__mro__)
    cause = exc.__cause__ or exc.__context__
    if cause is not None:
        names += " " + " ".join(cls.__name__ for cls in type(cause).__mro__)
    text = names + " " + str(exc)
    if "Timeout" in text or "TimedOut" in text or "took longer than" in text:
        return "timeout"
    if "DNS" in text or "CannotResolveHost" in text:
        return "dns"
    if "ConnectionRefused" in text:
        return "connection_refused"
    if "SSL" in text or "TLS" in text:
        return "ssl"
    if any(
        n in text
        for n in (
            "ConnectionLost",
            "ConnectionDone",
            "ResponseNeverReceived",
            "ResponseFailed",
            "DataLoss",
            "DownloadFailed",
            "ConnectError",
        )
    ):
        return "connection_lost"
    return "error:" + type(exc).__name__.lower()
