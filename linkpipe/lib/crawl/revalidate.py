"""A refresh's conditional requests for the previous crawl's pages, sent before the spider starts
over kept-alive connections, many in flight on one thread (:mod:`.conditional`).

Scrapy costs about 3.7 ms of CPU a request, most of it its own machinery (scheduler, middleware,
deferreds), and on a nightly refresh nine URLs in ten answer 304 Not Modified. The spider takes
a URL that answered 304 here as fetched with that answer (``LinkSpider._schedule``), in the
order and at the depth its links give, exactly as when Scrapy had sent the request. Any other
answer, an error or a timeout leaves the URL to the spider, which requests it as before (a
changed page is requested twice). robots.txt is read first (http.client, one request a host):
a disallowed URL is not requested, and a host whose robots.txt sets a Crawl-delay or cannot be
reached is left to the spider (which keeps the delay). With an HTTP proxy configured
(``http_proxy``, ``https_proxy``) nothing is sent (the spider goes through the proxy), and
after 20 network failures in a row nothing more is sent (a firewall that drops direct
connections costs one timeout per connection in flight, not one per URL)."""

from __future__ import annotations

import asyncio
import http.client
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import SplitResult, urlsplit
from urllib.request import getproxies, proxy_bypass

from protego import Protego

from linkpipe.lib.crawl.conditional import BadRequest, Connections
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.fetch import utc_now

MAX_CONNECTIONS = 8  # conditional requests in flight (at most the crawl's concurrency)
MAX_FAILURES = 20  # network failures in a row after which nothing more is sent
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


@dataclass
class _Tally:
    """What was sent and received; network failures in a row and in all."""

    requests: int = 0
    bytes: int = 0
    failures: int = 0
    failed: int = 0

    @property
    def given_up(self) -> bool:
        """Whether so many requests in a row failed that the network path is closed."""
        return self.failures >= MAX_FAILURES

    def answered(self, size: int) -> None:
        """An answer came, ``size`` bytes of head: the failures in a row end."""
        self.requests, self.bytes, self.failures = self.requests + 1, self.bytes + size, 0

    def lost(self) -> None:
        """A request got no answer (a network error, a timeout, a garbled head)."""
        self.failures, self.failed = self.failures + 1, self.failed + 1


def _robots_text(cfg: CrawlConfig, tally: _Tally, scheme: str, netloc: str) -> str | None:
    """A host's robots.txt ("" when it answers other than 200), None when it cannot be read."""
    kind = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
    conn = kind(netloc.rpartition("@")[2], timeout=cfg.request_timeout_s)
    headers = {"User-Agent": cfg.user_agent, "Accept-Encoding": "identity"}
    try:
        conn.request("GET", "/robots.txt", headers=headers)
        response = conn.getresponse()
        body = response.read(ROBOTS_BYTES) if response.status == 200 else b""
    except (OSError, http.client.HTTPException):
        tally.lost()
        return None
    finally:
        conn.close()
    tally.answered(17 + len(body) + sum(len(k) + len(v) + 4 for k, v in response.getheaders()))
    return body.decode("utf-8", "replace")


def _allowed_hosts(
    cfg: CrawlConfig, tally: _Tally, hosts: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], Protego | None]:
    """Each (scheme, host)'s robots.txt rules (None: its Crawl-delay, or no answer at all,
    leaves it to the spider)."""
    rules: dict[tuple[str, str], Protego | None] = {}
    for key in hosts:
        if key in rules:
            continue
        text = _robots_text(cfg, tally, *key)
        if text is None:
            rules[key] = None
            continue
        parser = Protego.parse(text)
        delay = parser.crawl_delay(cfg.user_agent)
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
    tally = _Tally()
    split = {url: urlsplit(url) for url in list(requests)[: cfg.max_pages]}
    proxied = _proxied_hosts({parts[:2] for parts in split.values()})
    urls = [u for u, parts in split.items() if parts[:2] not in proxied]
    if cfg.obey_robots:
        rules = _allowed_hosts(cfg, tally, (split[u][:2] for u in urls))
        urls = [u for u in urls if _permitted(rules.get(split[u][:2]), u, cfg.user_agent)]
    sending = _Sending(cfg, requests, urls, split, tally, progress)
    loop = asyncio.new_event_loop()  # not set as the thread's loop: Scrapy's reactor comes next
    try:
        loop.run_until_complete(sending.all(max(1, min(MAX_CONNECTIONS, cfg.concurrency))))
        loop.run_until_complete(loop.shutdown_default_executor())  # name lookups' threads
    finally:
        loop.close()
    found = {url: sending.found[url] for url in urls if url in sending.found}  # in URL order
    return Revalidation(found, tally.requests, tally.bytes, tally.failed)


@dataclass
class _Sending:
    """The conditional requests of one refresh, taken in order by a few workers."""

    cfg: CrawlConfig
    requests: dict[str, dict[str, str]]
    urls: list[str]
    split: dict[str, SplitResult]  # each URL's parts
    tally: _Tally
    progress: Progress | None
    found: dict[str, NotModified] = field(default_factory=dict)
    taken: int = 0
    shown: float = 0.0  # when progress was last shown

    async def all(self, workers: int) -> None:
        """Send every request, ``workers`` in flight, none after half the crawl's time."""
        deadline = time.monotonic() + self.cfg.total_time_s / 2  # the rest is the spider's
        queue = iter(self.urls)
        await asyncio.gather(*(self._worker(queue, deadline) for _ in range(workers)))

    async def _worker(self, queue: Iterator[str], deadline: float) -> None:
        connections = Connections(self.cfg.request_timeout_s)
        sent = {"User-Agent": self.cfg.user_agent, "Accept-Encoding": "identity"}
        try:
            for url in queue:
                self._show()
                if time.monotonic() > deadline or self.tally.given_up:
                    continue
                started = time.perf_counter()
                try:
                    answer = await connections.get(self.split[url], {**sent, **self.requests[url]})
                except BadRequest:
                    continue
                except (OSError, ValueError):
                    self.tally.lost()
                    continue
                self.tally.answered(answer.size)
                if answer.status == 304:
                    elapsed = round((time.perf_counter() - started) * 1000, 2)
                    self.found[url] = NotModified(answer.headers, elapsed, utc_now())
        finally:
            connections.close()

    def _show(self) -> None:
        self.taken += 1
        if self.progress is not None and time.monotonic() - self.shown >= 0.5:
            self.shown = time.monotonic()
            self.progress(self.taken, len(self.urls) - self.taken)


def _proxied_hosts(hosts: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (scheme, netloc) pairs an HTTP proxy is configured for (``no_proxy`` counts)."""
    proxies = getproxies()
    return {
        (scheme, netloc) for scheme, netloc in hosts
        if scheme in proxies and not proxy_bypass(urlsplit(f"//{netloc}").hostname or netloc)
    }  # fmt: skip


def _permitted(rules: Protego | None, url: str, user_agent: str) -> bool:
    return rules is not None and bool(rules.can_fetch(url, user_agent))
