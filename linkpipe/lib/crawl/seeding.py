"""Before the crawl: robots.txt (per host, on demand) and sitemaps; after it: sitemap orphans."""

from __future__ import annotations

import contextlib
from typing import Any
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response
from twisted.python.failure import Failure

from linkpipe.lib.crawl import fetch
from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.frontier import Frontier
from linkpipe.lib.crawl.sitemaps import (
    MAX_SITEMAP_BYTES,
    MAX_SITEMAP_FILES,
    MAX_SITEMAP_URLS,
    parse_sitemap,
)
from linkpipe.lib.urls import normalize_url


class SeedingMixin:
    """robots.txt and sitemap handling of :class:`~linkpipe.lib.crawl.spider.LinkSpider`.

    The start URL is requested once the start host's robots.txt and every sitemap are in, so
    ``in_sitemap`` is known for every page. URLs found only in sitemaps are requested when the
    link frontier is exhausted, so that a page reachable by links gets its link depth.
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

    def _robots_request(self, host: str, scheme: str, start_phase: bool = False) -> scrapy.Request:
        return scrapy.Request(
            f"{scheme}://{host}/robots.txt",
            callback=self.parse_robots,
            errback=self.robots_failed,
            priority=1000,
            dont_filter=True,
            meta={"lp_kind": "robots", "lp_host": host, "lp_start": start_phase},
        )

    def parse_robots(self, response: Response) -> list[scrapy.Request]:
        text = response.body.decode("utf-8", "replace") if response.status == 200 else ""
        return self._robots_done(response.meta, text)

    def robots_failed(self, failure: Failure) -> list[scrapy.Request]:
        return self._robots_done(fetch.failed_request(failure).meta, "")

    def _robots_done(self, meta: dict[str, Any], text: str) -> list[scrapy.Request]:
        host = meta["lp_host"]
        requests: list[scrapy.Request] = []
        waiting = self.frontier.set_robots(host, text)
        delay = self.frontier.crawl_delay(host)
        if delay:
            self.flags["crawl_delay_s"][host] = min(delay, self.cfg.max_crawl_delay_s)
            self.slow_down(host)
        for url, original, depth, extra in waiting:
            requests += self._schedule(url, original, depth, **extra)
        if meta.get("lp_start"):
            sitemaps = [
                *self.frontier.sitemap_urls(host),
                f"{urlsplit(self.start_url).scheme}://{host}/sitemap.xml",
            ]
            requests += [
                self._sitemap_request(u) for u in dict.fromkeys(sitemaps) if self.cfg.use_sitemap
            ]
            if not self.flags["sitemaps_pending"]:
                requests += self._begin()
        return requests

    def slow_down(self, host: str) -> None:
        """Honour the host's Crawl-delay: one request at a time, that many seconds apart."""
        delay = self.flags["crawl_delay_s"][host]
        key = urlsplit(f"//{host}").hostname or host  # Scrapy's download slot of the host
        downloader = self.crawler.engine.downloader
        downloader.per_slot_settings[key] = {"delay": delay, "concurrency": 1, "jitter": 0.0}
        slot = downloader.slots.get(key)
        if slot is not None:  # the robots.txt request opened it already
            slot.delay, slot.concurrency, slot.jitter = delay, 1, 0.0

    def _sitemap_request(self, url: str) -> scrapy.Request:
        self.flags["sitemap_files"].add(url)
        self.flags["sitemaps_pending"] += 1
        return scrapy.Request(
            url,
            callback=self.parse_sitemap,
            errback=self.sitemap_failed,
            priority=900,
            dont_filter=True,
            meta={"lp_kind": "sitemap", "download_maxsize": MAX_SITEMAP_BYTES},
        )

    def parse_sitemap(self, response: Response) -> list[scrapy.Request]:
        parsed = parse_sitemap(response.body)
        requests = [
            self._sitemap_request(child)
            for child in (urljoin(response.url, entry.loc) for entry in parsed.sitemaps)
            if child not in self.flags["sitemap_files"]
            and len(self.flags["sitemap_files"]) < MAX_SITEMAP_FILES
        ]
        for entry in parsed.urls:
            if len(self.sitemap) >= MAX_SITEMAP_URLS:
                break
            # kept even when off-site for now: the start URL may still redirect to www. or https
            with contextlib.suppress(ValueError):
                url = normalize_url(entry.loc, response.url, **self.norm)
                self.sitemap.setdefault(url, entry.lastmod)
        return requests + self._sitemap_done()

    def sitemap_failed(self, failure: Failure) -> list[scrapy.Request]:
        return self._sitemap_done()

    def _sitemap_done(self) -> list[scrapy.Request]:
        self.flags["sitemaps_pending"] -= 1
        return self._begin() if self.flags["sitemaps_pending"] == 0 else []

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
        for request in requests:
            self.crawler.engine.crawl(request)
        if requests:
            raise DontCloseSpider
