"""Serve a folder of static HTML on loopback, for the demo, the tests and the eval harness.

Besides plain files, an optional ``_routes.json`` at the site root declares what a static folder
cannot express:

```json
{"redirects": {"/old-path/": "/new-path/"},          # 301 to the given path
 "headers": {"/private/": {"X-Robots-Tag": "noindex"}},
 "status": {"/gone/": 410}}
```

Query strings are ignored when looking up files, so ``/search/?q=x`` serves ``/search/index.html``.
In served text files (HTML, XML, TXT) the placeholder ``__BASE_URL__`` is replaced by the server's
own base URL, so sitemaps and canonicals can be absolute while the port is chosen at run time.
"""

from __future__ import annotations

import json
import mimetypes
import socketserver
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

BASE_URL_PLACEHOLDER = b"__BASE_URL__"


@dataclass
class SiteRoutes:
    """Redirects, extra headers and forced statuses for a served folder."""

    redirects: dict[str, str] = field(default_factory=dict)
    headers: dict[str, dict[str, str]] = field(default_factory=dict)
    status: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path) -> SiteRoutes:
        """Read ``_routes.json`` from ``root`` (empty routes when absent)."""
        path = root / "_routes.json"
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            redirects=dict(data.get("redirects", {})),
            headers={k: dict(v) for k, v in data.get("headers", {}).items()},
            status={k: int(v) for k, v in data.get("status", {}).items()},
        )


def resolve_file(root: Path, url_path: str) -> Path | None:
    """Map a URL path to a file under ``root`` (``dir/`` -> ``dir/index.html``), or None."""
    rel = unquote(url_path).lstrip("/")
    candidate = (root / rel).resolve()
    root_resolved = root.resolve()
    if root_resolved != candidate and root_resolved not in candidate.parents:
        return None
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def _validators(file: Path) -> dict[str, str]:
    """ETag and Last-Modified of a served file, from its size and modification time."""
    st = file.stat()
    return {
        "ETag": f'"{st.st_size:x}-{st.st_mtime_ns:x}"',
        "Last-Modified": formatdate(st.st_mtime, usegmt=True),
    }


def _not_modified(headers: Any, validators: dict[str, str]) -> bool:
    """True when the request's conditional headers match the file (answer 304)."""
    etag = headers.get("If-None-Match")
    if etag is not None:
        return validators["ETag"] in [t.strip() for t in etag.split(",")]
    since = headers.get("If-Modified-Since")
    if since:
        try:
            return parsedate_to_datetime(validators["Last-Modified"]) <= parsedate_to_datetime(
                since
            )
        except (TypeError, ValueError):
            return False
    return False


KEEP_ALIVE_S = 15  # an idle kept-alive connection is closed after this many seconds


def _make_handler(root: Path, routes: SiteRoutes) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "linkpipe-static/1"
        # connections kept alive, as web servers keep them (HTTP/1.0 closed one a request: a
        # crawler of the served site paid a TCP connect per page); an idle one closes
        protocol_version = "HTTP/1.1"
        timeout = KEEP_ALIVE_S

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

        def do_HEAD(self) -> None:  # noqa: N802
            self._serve(send_body=False)

        def do_GET(self) -> None:  # noqa: N802
            self._serve(send_body=True)

        def _serve(self, send_body: bool) -> None:
            path = urlsplit(self.path).path or "/"
            if path in routes.redirects:
                self.send_response(301)
                self.send_header("Location", routes.redirects[path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            file = resolve_file(root, path)
            status = routes.status.get(path, 200 if file else 404)
            validators = _validators(file) if file and status == 200 else {}
            if validators and _not_modified(self.headers, validators):
                self.send_response(304)
                for key, value in validators.items():
                    self.send_header(key, value)
                self.end_headers()
                return
            body = file.read_bytes() if file else b"<html><body><h1>Not found</h1></body></html>"
            ctype = (mimetypes.guess_type(file.name)[0] if file else None) or "text/html"
            if ctype.startswith("text/") or ctype.endswith("xml"):
                body = body.replace(BASE_URL_PLACEHOLDER, _base_url(self.server).encode())
                ctype += "; charset=utf-8"
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for key, value in {**validators, **routes.headers.get(path, {})}.items():
                self.send_header(key, value)
            self.end_headers()
            if send_body:
                self.wfile.write(body)

    return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # crawlers open many connections at once; 5 would drop some

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report a request's error, but for a client that hangs up a kept-alive connection
        (a crawler closing its pool at the end: not an error of the site)."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


@dataclass
class RunningSite:
    """A served folder: ``base_url`` ends without a slash, e.g. ``http://127.0.0.1:8123``."""

    base_url: str
    server: ThreadingHTTPServer

    def stop(self) -> None:
        """Shut the server down and free its port."""
        self.server.shutdown()
        self.server.server_close()


def start_site(root: Path, port: int = 0) -> RunningSite:
    """Serve ``root`` on 127.0.0.1 (a free port when ``port`` is 0) in a daemon thread."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"site folder not found: {root}")
    server = _Server(("127.0.0.1", port), _make_handler(root, SiteRoutes.load(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="linkpipe-site")
    thread.start()
    return RunningSite(base_url=_base_url(server), server=server)


def _base_url(server: socketserver.BaseServer) -> str:
    """``http://host:port`` of a server listening on an IP address."""
    address = server.server_address
    if not isinstance(address, tuple):
        raise TypeError(f"not an IP server address: {address!r}")
    host = address[0].decode() if isinstance(address[0], bytes) else address[0]
    return f"http://{host}:{address[1]}"


@contextmanager
def serve_site(root: Path, port: int = 0) -> Iterator[RunningSite]:
    """Context manager around :func:`start_site`."""
    site = start_site(root, port)
    try:
        yield site
    finally:
        site.stop()
