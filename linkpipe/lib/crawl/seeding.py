"""Before the crawl: robots.txt (per host, on demand) and sitemaps; after it: sitemap orphans."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import scrapy
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response
from twisted.python.failure import Failure

from linkpipe.lib.crawl import fetch
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.frontier import Frontier
from linkpipe.lib.crawl.scope import SITEMAP_BAD_URL, seeding_flags
from linkpipe.lib.crawl.sitemaps import MAX_SITEMAP_BYTES, MAX_SITEMAP_URLS, parse_sitemap
from linkpipe.lib.urls import normalize_url, url_host

if TYPE_CHECKING:
    from collections.abc import Iterable


class SeedingMixin:
    """robots.txt and sitemap handling of :class:`~linkpipe.lib.crawl.spider.LinkSpider`.

    The start URL is requested once the start host's robots.txt and every sitemap on the site
    are in, so ``in_sitemap`` is known for every page. A start URL that redirects to another
    host (the one host it may add, see :mod:`~linkpipe.lib.crawl.scope`) has that host seeded
    the same way before the redirect's target is requested. A sitemap that cannot be read
    (unreachable, HTTP error, malformed) is recorded in the stats, never stops the crawl. URLs
    found only in sitemaps are requested when the link frontier is exhausted, so that a page
    reachable by links gets its link depth.
    """

    cfg: CrawlConfig
    frontier: Frontier
    sitemap: dict[str, str]
    flags: dict[str, Any]
    start_url: str
    norm: dict[str, Any]
    crawler: Any

    def _schedule(self, url: str, original: str, depth: int, exempt: bool = False,
                  source_pattern: str = "") -> list[scrapy.Request]:  # fmt: skip
        raise NotImplementedError

    def _drain(self) -> list[scrapy.Request]:
        raise NotImplementedError

    if TYPE_CHECKING:  # from ScopeMixin

        def _sitemap_requests(self, locs: Iterable[str], base: str,
                              guessed: bool = False) -> list[scrapy.Request]: ...  # fmt: skip
        def _deferred_in_scope(self) -> list[str]: ...
        def _sitemap_failed(self, url: str, reason: str) -> None: ...
        def _skip_sitemap(self, url: str, reason: str) -> None: ...

    def _robots_request(self, host: str, scheme: str, start_phase: bool = False) -> scrapy.Request:
        url = f"{scheme}://{host}/robots.txt"
        return scrapy.Request(
            url,
            callback=self.parse_robots,
            errback=self.robots_failed,
            priority=1000,
            dont_filter=True,
            meta={"lp_kind": "robots", "lp_host": host, "lp_start": start_phase, "lp_url": url},
        )

    def _seed_host(self, host: str, scheme: str) -> list[scrapy.Request]:
        """Seed the start host (or the start URL's redirect host): its robots.txt, then its
        sitemaps; the crawl begins (or the held redirect goes on) once they are all in."""
        if self.cfg.obey_robots:
            self.frontier.robots_txt[host] = None
        self.flags["seeding_pending"] += 1
        return [self._robots_request(host, scheme, start_phase=True)]

    def _hold(self, url: str, original: str, depth: int) -> list[scrapy.Request]:
        """Request ``url`` (a start redirect's target on a new host) after that host's seeding."""
        self.flags["held"].append((url, original, depth))
        return self._seed_host(url_host(url), urlsplit(url).scheme)

    def parse_robots(self, response: Response) -> list[scrapy.Request]:
        text = response.body.decode("utf-8", "replace") if response.status == 200 else ""
        return self._robots_done(response.meta, text, response.url)

    def robots_failed(self, failure: Failure) -> list[scrapy.Request]:
        request = fetch.failed_request(failure)
        return self._robots_done(request.meta, "", request.url)

    def _robots_done(self, meta: dict[str, Any], text: str, url: str) -> list[scrapy.Request]:
        """``url``: where robots.txt was read (after redirects); its relative Sitemap: lines
        are resolved against it."""
        host = meta["lp_host"]
        requests: list[scrapy.Request] = []
        waiting = self.frontier.set_robots(host, text)
        delay = self.frontier.crawl_delay(host)
        if delay:
            self.flags["crawl_delay_s"][host] = min(delay, self.cfg.max_crawl_delay_s)
            self.slow_down(host)
        for waiting_url, original, depth, extra in waiting:
            requests += self._schedule(waiting_url, original, depth, **extra)
        if not meta.get("lp_start"):
            return requests + self._drain()
        if self.cfg.use_sitemap:
            requests += self._sitemap_requests(self.frontier.sitemap_urls(host), url)
            requests += self._sitemap_requests(self._deferred_in_scope(), url)
            robots_url = meta.get("lp_url", url)  # as requested (before redirects)
            requests += self._sitemap_requests(["/sitemap.xml"], robots_url, guessed=True)
        return requests + self._seeding_step_done()

    def slow_down(self, host: str) -> None:
        """Honour the host's Crawl-delay: one request at a time, that many seconds apart."""
        delay = self.flags["crawl_delay_s"][host]
        key = urlsplit(f"//{host}").hostname or host  # Scrapy's download slot of the host
        downloader = self.crawler.engine.downloader
        downloader.per_slot_settings[key] = {"delay": delay, "concurrency": 1, "jitter": 0.0}
        slot = downloader.slots.get(key)
        if slot is not None:  # the robots.txt request opened it already
            slot.delay, slot.concurrency, slot.jitter = delay, 1, 0.0

    def _sitemap_request(self, url: str, guessed: bool = False) -> scrapy.Request:
        """``guessed``: the default /sitemap.xml, which a site need not have (404 is no error).
        Redirects are not followed by Scrapy: :meth:`parse_sitemap` checks their scope."""
        self.flags["sitemap_files"].add(url)
        self.flags["seeding_pending"] += 1
        return scrapy.Request(
            url,
            callback=self.parse_sitemap,
            errback=self.sitemap_failed,
            priority=900,
            dont_filter=True,
            meta={
                "lp_kind": "sitemap",
                "lp_guessed": guessed,
                "download_maxsize": MAX_SITEMAP_BYTES,
                "dont_redirect": True,
                "handle_httpstatus_all": True,
            },
        )

    def parse_sitemap(self, response: Response) -> list[scrapy.Request]:
        status, url = response.status, response.url
        location = fetch.header(response, "Location")
        if 300 <= status < 400 and location:
            return self._sitemap_requests([location], url) + self._seeding_step_done()
        if status != 200:
            if not (response.meta.get("lp_guessed") and status in (404, 410)):
                self._sitemap_failed(url, f"HTTP {status}")
            return self._seeding_step_done()
        parsed = parse_sitemap(response.body)
        self.flags["sitemap_log"]["read"] += 1
        if parsed.error:
            self._sitemap_failed(url, parsed.error)
        requests = self._sitemap_requests([entry.loc for entry in parsed.sitemaps], url)
        for entry in parsed.urls:
            if len(self.sitemap) >= MAX_SITEMAP_URLS:
                break
            loc = entry.loc.strip()
            if not loc or any(ch.isspace() for ch in loc):  # a URL never has spaces: junk
                self._skip_sitemap(loc[:200], SITEMAP_BAD_URL)
                continue
            # kept even when off-site: the frontier decides when they are scheduled
            with contextlib.suppress(ValueError):
                page_url = normalize_url(loc, url, **self.norm)
                self.sitemap.setdefault(page_url, entry.lastmod)
        return requests + self._seeding_step_done()

    def sitemap_failed(self, failure: Failure) -> list[scrapy.Request]:
        kind = fetch.classify_failure(failure)
        self._sitemap_failed(fetch.failed_request(failure).url, fetch.ERROR_WORDS.get(kind, kind))
        return self._seeding_step_done()

    def _seeding_step_done(self) -> list[scrapy.Request]:
        """One seeding request answered; when none is left, the crawl goes on."""
        self.flags["seeding_pending"] -= 1
        if self.flags["seeding_pending"] > 0:
            return []
        requests = self._begin()
        held, self.flags["held"] = self.flags["held"], []
        for url, original, depth in held:
            requests += self._schedule(url, original, depth, exempt=True)
        return requests + self._drain()

    def _resume_seeding(self) -> list[scrapy.Request]:
        """A resumed crawl (JOBDIR) that had begun: start redirects held for their host's
        sitemaps go on at once (state saved by an older version lacks the newer flags)."""
        for key, value in seeding_flags().items():
            self.flags.setdefault(key, value)
        held, self.flags["held"] = self.flags["held"], []
        self.flags["seeding_pending"] = 0
        requests: list[scrapy.Request] = []
        for url, original, depth in held:
            requests += self._schedule(url, original, depth, exempt=True)
        return requests + self._drain()

    def _begin(self) -> list[scrapy.Request]:
        if self.flags["started"]:
            return []
        self.flags["started"] = True
        requests = self._schedule(self.start_url, self.cfg.start_url, 0, exempt=True)
        for seed in self.cfg.seed_urls:  # a URL list: every listed URL is a start URL
            try:
                url = normalize_url(seed, **self.norm)
            except ValueError:
                continue
            requests += self._schedule(url, seed, 0, exempt=True)
        return requests

    def on_idle(self) -> None:
        """Once links are exhausted, fetch sitemap URLs no link led to (orphans, depth 1)."""
        if self.flags["seeded"] or not self.flags["started"] or not self.sitemap:
            return
        self.flags["seeded"] = True
        requests = [
            r
            for url in self.sitemap
            if url not in self.frontier.seen
            for r in self._schedule(url, url, 1, exempt=True)
        ]
        requests += self._drain()
        for request in requests:
            self.crawler.engine.crawl(request)
        if requests:
            raise DontCloseSpider
