"""The Scrapy spider: robots.txt and sitemaps first, then the site breadth-first from the start
URL; every URL's outcome becomes a PageRecord, every link of an HTML page a LinkRecord."""

from __future__ import annotations

import sys
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import StopDownload
from scrapy.http import Response
from twisted.python.failure import Failure

from linkpipe.lib.crawl import fetch
from linkpipe.lib.crawl.config import PROGRESS_PREFIX, CrawlConfig, PreviousPage
from linkpipe.lib.crawl.frontier import FETCH, ROBOTS, ROBOTS_UNKNOWN, SEEN, TRAP, Frontier
from linkpipe.lib.crawl.output import CrawlOutput, PreviousCrawl
from linkpipe.lib.crawl.redirects import RedirectTracker
from linkpipe.lib.crawl.revalidate import NotModified
from linkpipe.lib.crawl.scope import ScopeMixin, seeding_flags
from linkpipe.lib.crawl.seeding import SeedingMixin
from linkpipe.lib.crawl.stored_parse import META_FIELDS, StoredParse, decode_parse, parse_key
from linkpipe.lib.hashing import sampled, text_hash
from linkpipe.lib.html.decoding import decode_body
from linkpipe.lib.html.parse import parse_page
from linkpipe.lib.html.templates import SAMPLE_PAGES, TemplateDetector
from linkpipe.lib.records import PageRecord
from linkpipe.lib.urls import normalize_url, url_host, url_pattern

RESUMABLE = ("frontier", "redirects", "sitemap", "flags", "templates", "tally")  # kept in JOBDIR
PAGE_META = {"dont_redirect": True, "handle_httpstatus_all": True, "lp_kind": "page"}


class LinkSpider(SeedingMixin, ScopeMixin, scrapy.Spider):
    """One crawl of one site, configured by a :class:`CrawlConfig` dict. The site is the start
    URL's host, plus at most one host its redirect leads to (never a chain of hosts); sitemaps
    are fetched only on the site (see :mod:`linkpipe.lib.crawl.scope`)."""

    name = "linkpipe"

    def __init__(
        self,
        config: dict[str, Any],
        out_dir: str,
        previous: PreviousCrawl | None = None,
        revalidated: dict[str, NotModified] | None = None,
        **kwargs: Any,
    ) -> None:
        """``previous``: the previous crawl's pages (read from ``previous_path`` when not
        given); ``revalidated``: those that answered 304 before the spider started (see
        :mod:`linkpipe.lib.crawl.revalidate`)."""
        super().__init__(**kwargs)
        self.cfg = CrawlConfig.from_dict(config)
        self.out_dir = Path(out_dir)
        self.norm = self.cfg.normalization()
        self.start_url = normalize_url(self.cfg.start_url, **self.norm)
        hosts = {url_host(self.start_url), *(h.lower() for h in self.cfg.extra_hosts)}
        hosts |= {url_host(u) for u in self.cfg.seed_urls if "://" in u}
        self.frontier = Frontier(
            hosts=hosts,
            allow_subdomains=self.cfg.allow_subdomains,
            max_pages=self.cfg.max_pages,
            max_depth=self.cfg.max_depth,
            trap_cap=self.cfg.trap_cap_per_pattern,
            obey_robots=self.cfg.obey_robots,
            user_agent=self.cfg.user_agent,
        )
        self.redirects = RedirectTracker()
        self.templates = TemplateDetector(self.cfg.template_min_pages, self.cfg.template_min_share)
        self.template_sample = min(1.0, SAMPLE_PAGES / max(1, self.cfg.max_pages))
        self.sitemap: dict[str, str] = {}  # url -> lastmod
        self.flags: dict[str, Any] = {
            "started": False,
            "seeded": False,
            **seeding_flags(),
            "start_chain": {self.start_url},
            "crawl_delay_s": {},  # host -> seconds, from robots.txt
        }
        self.outcomes: dict[str, PageRecord] = {}  # records of the start URL's chain
        self.tally: Counter[str] = Counter()  # fetched, skipped_links
        self._last_progress = 0.0
        prev = Path(self.cfg.previous_path) if self.cfg.previous_path else None
        self.previous = previous or PreviousCrawl(prev, self.norm)
        self.revalidated = dict(revalidated or {})
        self.answered: deque[tuple[str, str, int]] = deque()  # revalidated URLs scheduled
        self.output: CrawlOutput | None = None
        self._parse_keys: tuple[frozenset[str], str] = (frozenset(), "")

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> LinkSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.on_idle, signal=signals.spider_idle)
        crawler.signals.connect(spider.on_headers, signal=signals.headers_received)
        crawler.signals.connect(spider.on_bytes, signal=signals.bytes_received)
        crawler.signals.connect(spider.on_closed, signal=signals.spider_closed)
        return spider

    # -- start: robots.txt, sitemaps, then the start URL --------------------------------------

    async def start(self) -> AsyncIterator[Any]:
        state = getattr(self, "state", None)  # set by Scrapy's SpiderState when JOBDIR is on
        saved = state.get("linkpipe") if state is not None else None
        if saved is not None:
            for name in RESUMABLE:
                setattr(self, name, saved[name])
        self.output = CrawlOutput(
            self.out_dir, append=saved is not None, tallies=saved and saved["output"]
        )
        if state is not None:
            state["linkpipe"] = {name: getattr(self, name) for name in RESUMABLE}
            state["linkpipe"]["output"] = self.output.tallies
        for host in self.flags.setdefault("crawl_delay_s", {}):
            self.slow_down(host)  # a resumed crawl keeps robots.txt and its delays
        if saved is not None and self.flags["started"]:
            for request in self._resume_seeding():
                yield request
            return
        self.flags.update(seeding_flags())  # (re)start the seeding phase
        if self.cfg.obey_robots or self.cfg.use_sitemap:
            host = url_host(self.start_url)
            for request in self._seed_host(host, urlsplit(self.start_url).scheme):
                yield request
        else:
            for request in self._begin() + self._drain():
                yield request

    # -- scheduling ---------------------------------------------------------------------------

    def _schedule(
        self, url: str, original: str, depth: int, exempt: bool = False, source_pattern: str = ""
    ) -> list[scrapy.Request]:
        decision = self.frontier.decide(url, depth, exempt, source_pattern)
        if decision == FETCH and url in self.revalidated:
            self.answered.append((url, original, depth))  # taken by the callback's _drain()
            return []
        if decision == FETCH:
            meta = {**PAGE_META, "lp_url": url, "lp_original": original, "lp_depth": depth}
            return [
                scrapy.Request(
                    url,
                    callback=self.parse_page,
                    errback=self.page_failed,
                    priority=-depth,
                    dont_filter=True,
                    meta=meta,
                    headers=self.previous.headers(url) or None,
                )
            ]
        if decision == ROBOTS_UNKNOWN:
            host = url_host(url)
            self.frontier.waiting.setdefault(host, []).append(
                (url, original, depth, {"exempt": exempt, "source_pattern": source_pattern})
            )
            if host not in self.frontier.robots_txt:
                self.frontier.robots_txt[host] = None
                return [self._robots_request(host, urlsplit(url).scheme)]
        elif decision == ROBOTS:
            record = self._record(url, original, depth)
            record.robots_disallowed, record.error = True, "robots_disallowed"
            self._finish(record)
        elif decision == TRAP:
            self.frontier.trapped.setdefault(url, (original, depth))
        elif decision != SEEN and url in self.redirects.waiters:
            self._emit(self.redirects.terminal(url))
        return []

    def _record(self, url: str, original: str, depth: int) -> PageRecord:
        lastmod = self.sitemap.get(url)
        return PageRecord(
            url=url,
            original_url=original or url,
            depth=depth,
            in_sitemap=lastmod is not None,
            sitemap_lastmod=lastmod or "",
        )

    def _emit(self, records: Iterable[PageRecord]) -> None:
        assert self.output is not None
        for record in records:
            if record.url in self.flags["start_chain"]:
                self.outcomes[record.url] = record
            self.output.page(record)

    def _finish(self, record: PageRecord) -> None:
        self._emit([record])
        self._emit(self.redirects.terminal(record.url))

    # -- responses ----------------------------------------------------------------------------

    def parse_page(self, response: Response) -> list[scrapy.Request]:
        meta = response.meta
        url = meta["lp_url"]
        depth = self.frontier.fetched_depth(url, meta["lp_depth"])
        record = self._record(url, meta["lp_original"], depth)
        fetch.fill_response_fields(record, response)
        record.final_url = url  # the redirect tracker replaces it for redirecting pages
        self.tally["fetched"] += 1
        requests: list[scrapy.Request] = []
        status = response.status
        location = fetch.header(response, "Location")
        if 300 <= status < 400 and status != 304 and location:
            requests = self._hop(record, location, depth)
        elif status == 304 and (previous := self.previous.row(url)) is not None:
            requests = self._not_modified(record, previous)
        elif 200 <= status < 300 and "lp_body_length" in meta:  # non-HTML, body not downloaded
            record.byte_size = meta["lp_body_length"]
        elif 200 <= status < 300:
            body = response.body
            record.truncated = (
                "download_stopped" in response.flags or len(body) > self.cfg.max_bytes
            )
            body = body[: self.cfg.max_bytes]
            record.byte_size = len(body)
            if fetch.looks_like_html(record.content_type, body):
                html, record.charset = decode_body(body, fetch.header(response, "Content-Type"))
                record.content_type = record.content_type or "text/html"
                requests = self._html(record, html, text_hash(html))
        if record.url not in self.redirects.target:  # not handed to the redirect tracker
            self._finish(record)
        self._progress()
        return requests + self._drain()

    def _not_modified(self, record: PageRecord, previous: PreviousPage) -> list[scrapy.Request]:
        """A 304: the page as the previous crawl had it, with this answer's headers; its record
        carries no HTML (the stage stores the previous crawl's again, see ``PreviousCrawl``),
        and its links come from the previous crawl's stored parse when one was made by this
        code with these settings (else its HTML is parsed again)."""
        record.status, record.not_modified = 200, True
        for key in ("etag", "last_modified", "content_type", "charset", "byte_size"):
            if previous.get(key) and not getattr(record, key):
                setattr(record, key, previous[key])
        record.content_type = record.content_type or "text/html"
        content_hash = previous.get("content_hash") or ""
        stored = decode_parse(self.previous.parse_z(previous), self._parse_key())
        if stored is None:
            requests = self._html(record, self.previous.html(previous), content_hash)
        else:
            record.content_hash = content_hash
            self.tally["parses_reused"] += 1
            self.output_.parse(record.url, content_hash, None)
            requests = self._take(record, stored)
        record.html = ""  # stored again from the previous crawl's stored HTML, as it is
        return requests

    def _drain(self) -> list[scrapy.Request]:
        """Take every scheduled URL that answered 304 before the spider started as fetched
        with that answer, and the URLs their links schedule in turn, first scheduled first
        (breadth first, so depths are those of the links); the requests for the others.
        Every callback that schedules ends with it."""
        requests: list[scrapy.Request] = []
        while self.answered:
            requests += self._answered(*self.answered.popleft())
        return requests

    def _answered(self, url: str, original: str, depth: int) -> list[scrapy.Request]:
        """One URL that answered 304 to the revalidation: what :meth:`parse_page` does with
        a 304 Scrapy received."""
        answer, previous = self.revalidated.pop(url), self.previous.row(url)
        record = self._record(url, original, self.frontier.fetched_depth(url, depth))
        fetch.fill_answer_fields(record, 304, answer.headers, answer.response_ms)
        record.fetched_at, record.final_url = answer.fetched_at, url
        self.tally["fetched"] += 1
        self.tally["revalidated"] += 1
        requests = self._not_modified(record, previous) if previous is not None else []
        if record.url not in self.redirects.target:
            self._finish(record)
        self._progress()
        return requests

    def _html(self, record: PageRecord, html: str, content_hash: str) -> list[scrapy.Request]:
        """Parse a page's HTML, keep the parse for the next crawl, and take it."""
        record.html, record.content_hash = html, content_hash
        parsed = parse_page(
            html,
            record.url,
            self.frontier.hosts,
            allow_subdomains=self.cfg.allow_subdomains,
            trailing_slash=self.cfg.trailing_slash,
            strip_params=self.norm["strip_params"],
        )
        stored = StoredParse.of(parsed, self._parse_key())
        self.output_.parse(record.url, content_hash, stored.encode())
        return self._take(record, stored)

    def _take(self, record: PageRecord, stored: StoredParse) -> list[scrapy.Request]:
        """A page's metadata and links from its parse; the requests its links schedule."""
        meta = stored.meta
        for name in (*META_FIELDS, "hreflang"):
            setattr(record, name, meta[name])
        self.output_.links_text(stored.links_text, len(stored.targets))
        if sampled(record.url, self.template_sample):
            self.templates.observe_page(stored.pairs(), stored.blocks)
        self.tally["skipped_links"] += meta["skipped_links"]
        requests: list[scrapy.Request] = []
        pattern = url_pattern(record.url)
        seen = self.frontier.seen
        for url, internal, href in zip(stored.targets, stored.internal, stored.hrefs, strict=True):
            if internal:
                original = url if url in seen else urljoin(meta["base_url"], href)
                requests += self._schedule(url, original, record.depth + 1, source_pattern=pattern)
            else:
                self.frontier.decide(url, record.depth + 1)  # counts off-host URLs
        if meta["meta_refresh"]:
            requests += self._hop(record, meta["meta_refresh"], record.depth, refresh=True)
        return requests

    def _parse_key(self) -> str:
        """The key of this crawl's parses (the site's hosts can grow by a redirect's)."""
        hosts = frozenset(self.frontier.hosts)
        if self._parse_keys[0] != hosts:
            self._parse_keys = (hosts, parse_key(
                hosts, self.cfg.allow_subdomains, self.cfg.trailing_slash, self.norm["strip_params"]
            ))  # fmt: skip
        return self._parse_keys[1]

    @property
    def output_(self) -> CrawlOutput:
        """The output files (open once the spider started)."""
        assert self.output is not None
        return self.output

    def page_failed(self, failure: Failure) -> None:
        meta = fetch.failed_request(failure).meta
        if meta.get("lp_kind") != "page":
            return
        record = self._record(
            meta["lp_url"],
            meta["lp_original"],
            self.frontier.fetched_depth(meta["lp_url"], meta["lp_depth"]),
        )
        record.error, record.fetched_at = fetch.classify_failure(failure), fetch.utc_now()
        self.tally["fetched"] += 1
        self._finish(record)
        self._progress()

    # -- signals ------------------------------------------------------------------------------

    def on_headers(
        self, headers: Any, body_length: Any, request: scrapy.Request, **kw: Any
    ) -> None:
        """Skip the body of non-HTML pages (PDFs, archives...): only their type and size count."""
        if request.meta.get("lp_kind") != "page" or headers.get(b"Content-Encoding"):
            return
        mime = fetch.mime_type((headers.get(b"Content-Type") or b"").decode("latin-1"))
        if mime and mime not in fetch.HTML_TYPES:
            request.meta["lp_body_length"] = body_length if isinstance(body_length, int) else 0
            raise StopDownload(fail=False)

    def on_bytes(self, data: bytes, request: scrapy.Request, **kwargs: Any) -> None:
        """Stop a page download past max_bytes; the partial body is kept and flagged."""
        if request.meta.get("lp_kind") == "page":
            received = request.meta["lp_bytes"] = request.meta.get("lp_bytes", 0) + len(data)
            if received > self.cfg.max_bytes:
                raise StopDownload(fail=False)

    def _progress(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_progress >= 0.5:
            self._last_progress = now
            fetched = self.tally["fetched"]
            queued = max(0, self.frontier.scheduled - fetched)
            print(f"{PROGRESS_PREFIX} {fetched} {queued}", file=sys.stderr, flush=True)

    def on_closed(self, reason: str) -> None:
        if self.output is None:
            return
        for url, (original, depth) in self.frontier.trapped.items():
            record = self._record(url, original, depth)
            record.error = "trap"
            self._finish(record)
        if self.frontier.trapped:
            self.frontier.skipped[TRAP] += len(self.frontier.trapped)
        self.frontier.trapped.clear()
        self._emit(self.redirects.flush())
        self.output.close()
        self._progress(force=True)
