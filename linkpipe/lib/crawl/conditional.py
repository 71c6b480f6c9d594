"""Conditional GETs over kept-alive connections, many in flight on one thread (asyncio streams):
the status line and headers of each answer are read, never a body (a 304 has none; any other
answer closes its connection unread, the page is the spider's to fetch).

http.client in a pool of eight threads cost ~0.35 ms of CPU a request on loopback (its header
parser, the pool, the GIL passing between threads); this ~0.2 ms, about what one http.client
connection asking one URL after another costs (``benchmarks/bench_revalidate.py``).
A kept-alive connection is closed after any answer but a 304 (the one without a body), one that
says ``Connection: close`` and one from an HTTP/1.0 server that does not keep it alive; one the
server closed between two requests is opened again once."""

from __future__ import annotations

import asyncio
import re
import ssl
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

HEAD_LIMIT = 256 * 1024  # bytes of a status line and headers
_UNSAFE = re.compile(r"[\x00-\x20\x7f]")  # in a request target: not sent
_UNSAFE_VALUE = re.compile(r"[\r\n\x00]")  # in a header value: not sent


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer's status, headers (lower-cased names, repeated ones joined with ", ", as
    Scrapy joins them), the bytes of its head and its HTTP version ("HTTP/1.1")."""

    status: int
    headers: dict[str, str]
    size: int
    version: str


class BadRequest(ValueError):
    """A URL or header value that cannot go on the wire as it is (nothing was sent)."""


def head_of(raw: bytes) -> Answer:
    """Parse a status line and headers ending in a blank line, lines ended by CRLF or by a bare
    LF (as some servers send them and http.client reads them). Raises ValueError when the
    status line is not HTTP's."""
    lines = [line.removesuffix("\r") for line in raw.decode("latin-1").split("\n")]
    version, _, rest = lines[0].partition(" ")
    if not version.startswith("HTTP/") or not rest[:3].isdigit():
        raise ValueError(f"not an HTTP status line: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            continue
        key, value = name.strip().lower(), value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return Answer(int(rest[:3]), headers, len(raw), version)


def keeps_alive(answer: Answer) -> bool:
    """Whether the connection can carry the next request after this answer, unread: a 304
    (which never has a body, whatever Content-Length it states, as http.client reads it) on
    a connection the server keeps alive."""
    tokens = {t.strip().lower() for t in answer.headers.get("connection", "").split(",")}
    if "close" in tokens or (answer.version == "HTTP/1.0" and "keep-alive" not in tokens):
        return False
    return answer.status == 304


def request_bytes(url: str | SplitResult, headers: dict[str, str]) -> bytes:
    """The request line and headers of a GET of ``url`` (or its parts). Raises
    :class:`BadRequest`."""
    parts = url if isinstance(url, SplitResult) else urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.netloc.rpartition("@")[2]
    if not parts.hostname or _UNSAFE.search(target) or _UNSAFE.search(host):
        raise BadRequest(f"not a request target: {parts.geturl()!r}")  # no host: not localhost
    lines = [f"GET {target} HTTP/1.1", f"Host: {host}"]
    for name, value in headers.items():
        if _UNSAFE_VALUE.search(value) or _UNSAFE.search(name):
            raise BadRequest(f"header {name!r} cannot be sent: {value!r}")
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")


Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Connections:
    """One worker's kept-alive connections, one per (scheme, host)."""

    def __init__(self, timeout_s: float, tls: ssl.SSLContext | None = None) -> None:
        self.timeout_s = timeout_s
        self.open: dict[tuple[str, str], Stream] = {}
        self._tls = tls  # for https: the default context (certificates checked) unless given

    async def get(self, url: str | SplitResult, headers: dict[str, str]) -> Answer:
        """The answer to a GET of ``url``; OSError, ValueError (a malformed or oversized head)
        or TimeoutError when there is none. A connection kept from an earlier answer that
        fails is replaced once."""
        parts = url if isinstance(url, SplitResult) else urlsplit(url)
        wire = request_bytes(parts, headers)
        key = (parts.scheme, parts.netloc)
        for attempt in (1, 2):
            reused = key in self.open
            try:
                async with asyncio.timeout(self.timeout_s):
                    stream = self.open.get(key) or await self._connect(parts, key)
                    answer = await _exchange(stream, wire)
            except (OSError, ValueError, EOFError) as error:  # timeouts are OSErrors
                self.drop(key)
                if attempt == 1 and reused:
                    continue
                if isinstance(error, EOFError):
                    raise OSError("the connection closed before an answer") from error
                raise
            if not keeps_alive(answer):
                self.drop(key)
            return answer
        raise AssertionError("unreachable")

    async def _connect(self, parts: SplitResult, key: tuple[str, str]) -> Stream:
        tls = parts.scheme == "https"
        if tls and self._tls is None:
            self._tls = ssl.create_default_context()
        port = parts.port or (443 if tls else 80)
        stream = await asyncio.open_connection(
            parts.hostname, port, ssl=self._tls if tls else None, limit=HEAD_LIMIT
        )
        self.open[key] = stream
        return stream

    def drop(self, key: tuple[str, str]) -> None:
        """Close the connection to ``key``, if one is open."""
        stream = self.open.pop(key, None)
        if stream is not None:
            stream[1].close()

    def close(self) -> None:
        """Close every connection."""
        for key in list(self.open):
            self.drop(key)


async def _exchange(stream: Stream, wire: bytes) -> Answer:
    reader, writer = stream
    writer.write(wire)
    await writer.drain()
    while True:
        answer = head_of(await _head(reader))
        if not 100 <= answer.status < 200 or answer.status == 101:
            return answer  # an interim 1xx is followed by the answer


async def _head(reader: asyncio.StreamReader) -> bytes:
    """The bytes of a status line and headers, through the blank line that ends them (CRLF or
    bare LF line ends); IncompleteReadError (an EOFError) when the connection closes first,
    ValueError past :data:`HEAD_LIMIT` bytes."""
    lines: list[bytes] = []
    size = 0
    while True:
        line = await reader.readline()  # a line past the stream's limit: ValueError
        if not line.endswith(b"\n"):
            raise asyncio.IncompleteReadError(b"".join(lines) + line, None)
        size += len(line)
        if size > HEAD_LIMIT:
            raise ValueError("an answer's headers past the size read")
        lines.append(line)
        if line in (b"\r\n", b"\n"):
            return b"".join(lines)
