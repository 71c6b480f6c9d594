"""Checks `run` and `crawl` make before anything is written: the start URL's form, the database
location and whether the start URL answers. Each failure is one :class:`UserError` line; no
database file, no dagster_home and no crawl is created."""

from __future__ import annotations

import http.client
import os
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from linkpipe.cli.errors import UserError

PROBE_TIMEOUT_S = 10.0  # at most; a shorter [crawl] request_timeout_s applies


def check_start_url(url: str) -> None:
    """An absolute http(s) URL with a host, else a one-line error naming it."""
    from linkpipe.lib.urls import http_url_problem

    problem = http_url_problem(url)
    if problem:
        raise UserError(f"bad start URL {url!r}: {problem}")


def check_db_location(db: Path) -> None:
    """The database file can be created (or opened) at ``db``; nothing is created here."""
    if db.exists():
        if db.is_dir():
            raise UserError(f"cannot open database {db} for writing: it is a folder")
        return
    ancestor = db.parent.absolute()
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UserError(f"cannot open database {db} for writing: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise UserError(f"cannot open database {db} for writing: {ancestor} is not writable")


def check_reachable(url: str, settings: dict[str, Any]) -> None:
    """The start URL answers an HTTP request (any status, redirects followed) within a short
    timeout; a refused connection, an unknown host or a timeout is a one-line error."""
    from linkpipe.lib.crawl.config import CrawlConfig

    timeout = min(float(settings.get("request_timeout_s", PROBE_TIMEOUT_S)), PROBE_TIMEOUT_S)
    agent = str(settings.get("user_agent", CrawlConfig.user_agent))
    # As the crawler (Scrapy) does, certificates are not verified: the probe asks only whether
    # the site answers.
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context))
    for method in ("HEAD", "GET"):  # GET only when the server breaks on HEAD
        request = urllib.request.Request(url, method=method, headers={"User-Agent": agent})
        try:
            with opener.open(request, timeout=timeout):
                return
        except urllib.error.HTTPError:
            return  # an HTTP answer, whatever its status: the crawl records it
        except (http.client.HTTPException, ConnectionResetError):
            continue
        except (urllib.error.URLError, OSError) as exc:
            raise UserError(f"could not reach {url}: {_reason(exc, timeout)}") from None
    raise UserError(f"could not reach {url}: the server sent no valid HTTP answer")


def _reason(exc: BaseException, timeout: float) -> str:
    """A few words on why a request failed."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return "host not found"
    if isinstance(reason, ssl.SSLError):
        return f"TLS error ({reason.reason or reason})"
    text = str(getattr(reason, "strerror", None) or reason).strip()
    return text.splitlines()[0] if text else type(reason).__name__
