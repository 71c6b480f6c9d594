"""The refresh's conditional GETs (lib/crawl/conditional.py) against a raw server on loopback
that answers from a script: heads parsed (repeated headers joined, an interim 100 skipped),
connections kept while an answer allows it and opened again when one allows it not or the
server closed it, a URL or header value that cannot go on the wire never sent."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from linkpipe.lib.crawl.conditional import (
    BadRequest,
    Connections,
    head_of,
    keeps_alive,
    request_bytes,
)

NOT_MODIFIED = b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n'
Reply = Callable[[bytes], tuple[bytes, bool]]  # request head -> (answer bytes, close after)


@contextmanager
def raw_server(
    reply: Reply, tls: ssl.SSLContext | None = None
) -> Iterator[tuple[str, list[int]]]:
    """A loopback server answering each request head with ``reply`` (over TLS with ``tls``);
    yields its base URL and the connection number each request came on."""
    listener = socket.create_server(("127.0.0.1", 0))
    seen: list[int] = []

    def serve(conn: socket.socket, number: int) -> None:
        buf = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                head, _, buf = buf.partition(b"\r\n\r\n")
                seen.append(number)
                answer, close = reply(head)
                conn.sendall(answer)
                if close:
                    return

    def accept() -> None:
        number = 0
        while True:
            try:
                conn, _ = listener.accept()
                if tls is not None:
                    conn = tls.wrap_socket(conn, server_side=True)
            except OSError:
                return
            threading.Thread(target=serve, args=(conn, number), daemon=True).start()
            number += 1

    threading.Thread(target=accept, daemon=True).start()
    scheme = "https" if tls is not None else "http"
    try:
        yield f"{scheme}://127.0.0.1:{listener.getsockname()[1]}", seen
    finally:
        listener.close()


def _get_all(base: str, paths: list[str], tls: ssl.SSLContext | None = None) -> list:
    async def run() -> list:
        connections = Connections(timeout_s=5.0, tls=tls)
        try:
            return [await connections.get(base + p, {}) for p in paths]
        finally:
            connections.close()

    return asyncio.run(run())


def test_heads_are_parsed_with_repeated_headers_joined() -> None:
    answer = head_of(b"HTTP/1.1 304 Not Modified\r\nVary: a\r\nETAG: x\r\nvary: b\r\n\r\n")
    assert (answer.status, answer.version, answer.size) == (304, "HTTP/1.1", 27 + 3 * 9 + 2)
    assert answer.headers == {"vary": "a, b", "etag": "x"}
    with pytest.raises(ValueError, match="not an HTTP status line"):
        head_of(b"SSH-2.0-OpenSSH\r\n\r\n")


def test_only_a_304_that_allows_it_keeps_the_connection() -> None:
    def kept(raw: bytes) -> bool:
        return keeps_alive(head_of(raw))

    assert kept(NOT_MODIFIED)
    assert kept(b"HTTP/1.1 304 Not Modified\r\nContent-Length: 5120\r\n\r\n")  # the entity's
    assert not kept(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
    assert not kept(b"HTTP/1.1 204 No Content\r\n\r\n")
    assert not kept(b"HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n")
    assert not kept(b"HTTP/1.0 304 Not Modified\r\n\r\n")
    assert kept(b"HTTP/1.0 304 Not Modified\r\nConnection: Keep-Alive\r\n\r\n")


def test_a_request_with_a_line_break_or_a_space_is_never_built() -> None:
    wire = request_bytes("http://u:p@example.org:8080/a?b=1", {"If-None-Match": '"v"'})
    assert wire == b'GET /a?b=1 HTTP/1.1\r\nHost: example.org:8080\r\nIf-None-Match: "v"\r\n\r\n'
    with pytest.raises(BadRequest):
        request_bytes("http://example.org/a", {"If-None-Match": '"v"\r\nX-Evil: 1'})
    with pytest.raises(BadRequest):
        request_bytes("http://example.org/a b", {})
    with pytest.raises(BadRequest):  # no host: never sent (a name lookup of none is localhost)
        request_bytes("http:///a", {})


def test_kept_connections_carry_304s_and_close_after_any_other_answer() -> None:
    def reply(head: bytes) -> tuple[bytes, bool]:
        if head.startswith(b"GET /changed "):
            return b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody", False
        if head.startswith(b"GET /slow "):
            return b"HTTP/1.1 100 Continue\r\n\r\n" + NOT_MODIFIED, False
        if head.startswith(b"GET /sized "):
            return b"HTTP/1.1 304 Not Modified\r\nContent-Length: 5120\r\n\r\n", False
        return NOT_MODIFIED, False

    with raw_server(reply) as (base, seen):
        answers = _get_all(base, ["/a", "/slow", "/sized", "/changed", "/b", "/c"])
    assert [a.status for a in answers] == [304, 304, 304, 200, 304, 304]
    assert answers[0].headers == {"etag": '"v1"'}
    assert seen == [0, 0, 0, 0, 1, 1]  # the 200's body is never read: a new connection after it


def test_heads_with_bare_line_feeds_are_read_as_http_client_reads_them() -> None:
    lf = b'HTTP/1.1 304 Not Modified\nETag: "v2"\nServer: tiny\n\n'
    assert head_of(lf).headers == {"etag": '"v2"', "server": "tiny"}

    def reply(head: bytes) -> tuple[bytes, bool]:
        if head.startswith(b"GET /mixed "):  # CRLF and LF in one head
            return b"HTTP/1.1 100 Continue\n\nHTTP/1.1 304 Not Modified\r\nETag: x\n\r\n", False
        return lf, False

    with raw_server(reply) as (base, seen):
        answers = _get_all(base, ["/a", "/mixed", "/b"])
    assert [(a.status, a.headers.get("etag")) for a in answers] == [
        (304, '"v2"'), (304, "x"), (304, '"v2"'),
    ]  # fmt: skip
    assert seen == [0, 0, 0]  # one kept connection: each answer read to its end, no timeout


def test_a_connection_the_server_closed_is_opened_again_once() -> None:
    def reply(head: bytes) -> tuple[bytes, bool]:
        return NOT_MODIFIED, True  # says nothing, closes after each answer

    with raw_server(reply) as (base, seen):
        answers = _get_all(base, ["/a", "/b", "/c"])
    assert [a.status for a in answers] == [304, 304, 304]
    assert seen == [0, 1, 2]


def test_no_answer_is_an_oserror_and_a_garbled_one_a_valueerror() -> None:
    silent = raw_server(lambda head: (b"", True))
    with silent as (base, _), pytest.raises(OSError, match="closed before an answer"):
        _get_all(base, ["/a"])
    garbled = raw_server(lambda head: (b"garbage\r\n\r\n", False))
    with garbled as (base, _), pytest.raises(ValueError, match="not an HTTP status line"):
        _get_all(base, ["/a"])


def _self_signed(folder: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server, client) TLS contexts for a certificate of 127.0.0.1 only the client trusts."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ))  # fmt: skip
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return server, ssl.create_default_context(cafile=str(folder / "cert.pem"))


def test_https_304s_on_one_kept_connection_and_an_untrusted_certificate_refused(
    tmp_path: Path,
) -> None:
    server, client = _self_signed(tmp_path)
    with raw_server(lambda head: (NOT_MODIFIED, False), tls=server) as (base, seen):
        answers = _get_all(base, ["/a", "/b", "/c"], tls=client)
        assert [a.status for a in answers] == [304, 304, 304] and seen == [0, 0, 0]
        with pytest.raises(ssl.SSLError, match="CERTIFICATE_VERIFY_FAILED"):
            _get_all(base, ["/a"])  # the default context: the certificate is not trusted
