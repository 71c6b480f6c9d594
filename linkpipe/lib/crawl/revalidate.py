"""A refresh's conditional requests for the previous crawl's pages, sent before the spider starts
by a plain HTTP/1.1 client with kept-alive connections.

Scrapy costs about 3.7 ms of CPU a request, most of it its own machinery (scheduler, middleware,
deferreds), and on a nightly refresh nine URLs in ten answer 304 Not Modified. The spider takes
a URL that answered 304 here as fetched with that answer (``LinkSpider._schedule``), in the
order and at the depth its links give, exactly as when Scrapy had sent the request. Any other
answer, an error or a timeout leaves the URL to the spider, which requests it as before (a
changed page is requested twice). robots.txt is read first: a disallowed URL is not requested,
and a host whose robots.txt sets a Crawl-delay or cannot be reached is left to the spider
(which keeps the delay). With an HTTP proxy configured (``http_proxy``, ``https_proxy``) nothing
is sent (the spider goes through the proxy), and after 20 network failures in a row the client
gives up (a firewall that drops direct connections costs one timeout per thread, not one per
URL)."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass

from protego import Protego

from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.fetch import utc_now

MAX_THREADS = 8  # conditional requests in flight (at most the crawl's concurrency)
MAX_FAILURES = 20  # network failures in a row after which the client sends nothing more
ROBOTS_BYTES = 500 * 1024  # of a robots.txt read (Google reads 500 KiB)


@dataclass(frozen=True, slots=True)
class NotModified:
    """A 304 answer: its headers (lower-cased names), how long it took and when."""

    headers: dict[str, str]
    response_ms: float
    fetched_at: str


@dataclass
class Revalidation:
    """The URLs that answered 304, and what the client sent and received."""

    not_modified: dict[str, NotModified]
    requests: int = 0
    bytes_received: int = 0
    failed: int = 0  # requests that got no answer (network errors, timeouts)


class _Client:
    """One kept-alive connection per host and thread."""

    def __init__(self, cfg: CrawlConfig) -> None:
        self.cfg = cfg
        self.local = threading.local()
        self.lock = threading.Lock()
        self.requests = 0
        self.bytes = 0
        self.failures = 0  # network failures in a row
        self.failed = 0  # network failures in all
        self.opened: list[http.client.HTTPConnection] = []

    @property
    def given_up(self) -> bool:
        """Whether so many requests in a row failed that the network path is closed."""
        return self.failures >= MAX_FAILURES

    def get(
        self, url: str, headers: dict[str, str], body_limit: int = 0
    ) -> tuple[int, dict[str, str], bytes] | None:
        """(status, headers, body) of a GET, None on any network error. A 304 keeps the
        connection; the body of a 200 is read up to ``body_limit`` bytes (robots.txt) and any
        other answer closes the connection unread (a changed page is the spider's to fetch)."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        sent = {"User-Agent": self.cfg.user_agent, "Accept-Encoding": "identity", **headers}
        for attempt in (1, 2):  # a kept-alive connection the server closed: once more, afresh
            reused = key in self.local.__dict__.get("pool", {})
            conn = self._connection(key)
            try:
                conn.request("GET", path, headers=sent)
                response = conn.getresponse()
                keep = response.status == 304 and not response.will_close
                body = response.read() if keep else response.read(body_limit) if body_limit else b""
                break
            except (OSError, http.client.HTTPException):
                self._drop(key)
                if attempt == 2 or not reused:
                    with self.lock:
                        self.failures, self.failed = self.failures + 1, self.failed + 1
                    return None
        if not keep:
            self._drop(key)
        with self.lock:
            self.requests, self.failures = self.requests + 1, 0
            self.bytes += (
                17 + len(body) + sum(len(k) + len(v) + 4 for k, v in response.getheaders())
            )
        names: dict[str, str] = {}
        for name, value in response.getheaders():  # repeated headers joined, as Scrapy's are
            names[name.lower()] = (
                f"{names[name.lower()]}, {value}" if name.lower() in names else value
            )
        return response.status, names, body

    def _connection(self, key: tuple[str, str]) -> http.client.HTTPConnection:
        pool: dict[tuple[str, str], http.client.HTTPConnection]
        pool = self.local.__dict__.setdefault("pool", {})
        if key not in pool:
            kind = http.client.HTTPSConnection if key[0] == "https" else http.client.HTTPConnection
            pool[key] = kind(key[1], timeout=self.cfg.request_timeout_s)
            with self.lock:
                self.opened.append(pool[key])
        return pool[key]

    def close(self) -> None:
        """Close every connection any thread opened."""
        for conn in self.opened:
            conn.close()

    def _drop(self, key: tuple[str, str]) -> None:
        conn = self.local.__dict__.get("pool", {}).pop(key, None)
        if conn is not None:
            conn.close()


def _allowed_hosts(client: _Client, urls: Iterable[str]) -> dict[tuple[str, str], Protego | None]:
    """Each (scheme, host)'s robots.txt rules (None: its Crawl-delay, or no answer at all,
    leaves it to the spider)."""
    rules: dict[tuple[str, str], Protego | None] = {}
    for url in urls:
        scheme, netloc = key = urlsplit(url)[:2]
        if key in rules:
            continue
        answer = client.get(f"{scheme}://{netloc}/robots.txt", {}, ROBOTS_BYTES)
        if answer is None:
            rules[key] = None
            continue
        text = answer[2].decode("utf-8", "replace") if answer[0] == 200 else ""
        parser = Protego.parse(text)
        delay = parser.crawl_delay(client.cfg.user_agent)
        rules[key] = None if delay and delay > 0 else parser
    return rules


Progress = Callable[[int, int], None]  # (answered, left)


def revalidate(
    cfg: CrawlConfig, requests: dict[str, dict[str, str]], progress: Progress | None = None
) -> Revalidation:
    """Send the conditional ``requests`` (url -> If-None-Match / If-Modified-Since headers),
    at most ``cfg.max_pages`` of them, robots.txt first when ``cfg.obey_robots``; none after
    half of ``cfg.total_time_s`` (a slow site's remaining URLs are left to the spider).
    ``progress(answered, left)`` is called at most twice a second."""
    client = _Client(cfg)
    urls = list(requests)[: cfg.max_pages]
    proxied = _proxied_hosts({urlsplit(u)[:2] for u in urls})
    urls = [u for u in urls if urlsplit(u)[:2] not in proxied]
    if cfg.obey_robots:
        rules = _allowed_hosts(client, urls)
        urls = [u for u in urls if _permitted(rules.get(urlsplit(u)[:2]), u, cfg.user_agent)]

    deadline = time.monotonic() + cfg.total_time_s / 2  # the rest is the spider's
    shown = [0.0, 0]  # when progress was last shown, URLs answered

    def one(url: str) -> tuple[str, NotModified | None]:
        with client.lock:
            shown[1] += 1
            if progress is not None and time.monotonic() - shown[0] >= 0.5:
                shown[0] = time.monotonic()
                progress(int(shown[1]), len(urls) - int(shown[1]))
        if time.monotonic() > deadline or client.given_up:
            return url, None
        started = time.perf_counter()
        answer = client.get(url, requests[url])
        if answer is None or answer[0] != 304:
            return url, None
        elapsed = round((time.perf_counter() - started) * 1000, 2)
        return url, NotModified(answer[1], elapsed, utc_now())

    try:
        with ThreadPoolExecutor(max_workers=max(1, min(MAX_THREADS, cfg.concurrency))) as pool:
            answers = dict(pool.map(one, urls))
    finally:
        client.close()
    found = {url: answer for url, answer in answers.items() if answer is not None}
    return Revalidation(found, client.requests, client.bytes, client.failed)


def _proxied_hosts(hosts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (scheme, netloc) pairs an HTTP proxy is configured for (``no_proxy`` counts)."""
    proxies = getproxies()
    return {
        (scheme, netloc) for scheme, netloc in hosts
        if scheme in proxies and not proxy_bypass(urlsplit(f"//{netloc}").hostname or netloc)
    }  # fmt: skip


def _permitted(rules: Protego | None, url: str, user_agent: str) -> bool:
    return rules is not None and bool(rules.can_fetch(url, user_agent))
