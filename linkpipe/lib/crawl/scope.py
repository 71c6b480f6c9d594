"""The crawl's scope beyond its configured hosts: the one host a start URL's redirect may add,
and which sitemap files may be fetched.

The site is the start URL's host (with ``extra_hosts``, the hosts of ``seed_urls`` and, with
``allow_subdomains``, their subdomains). When the start URL redirects to another host
(``http://example.com/`` -> ``https://www.example.com/``), that one host joins the site; a
later hop of the same chain to yet another host is refused: it is not requested, the chain ends
there, and ``skipped["second_redirect_host"]`` counts it. Links and other pages' redirects never
add a host.

Sitemap files (``Sitemap:`` lines of robots.txt, the default ``/sitemap.xml``, sitemap-index
children, a sitemap's own redirect) are resolved against the file that names them and fetched
only when on the site. One on another host waits in case the start URL's redirect adds that
host; if it never does, it is counted in ``skipped["sitemap_off_host"]`` and listed in the
crawl stats' ``sitemap_files``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from linkpipe.lib.crawl.config import CrawlConfig
from linkpipe.lib.crawl.frontier import Frontier
from linkpipe.lib.crawl.redirects import RedirectTracker
from linkpipe.lib.crawl.sitemaps import MAX_SITEMAP_FILES
from linkpipe.lib.records import PageRecord
from linkpipe.lib.urls import (
    CRAWLABLE_SCHEMES,
    is_crawlable_scheme,
    normalize_url,
    same_site,
    url_host,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    import scrapy

SECOND_REDIRECT_HOST = "second_redirect_host"  # skipped: a start redirect's second other host
SITEMAP_OFF_HOST = "sitemap_off_host"  # skipped: a sitemap file on another host
SITEMAP_BAD_URL = "sitemap_bad_url"  # skipped: a sitemap reference that is no http(s) URL
SITEMAP_FILES_LIMIT = "sitemap_files_limit"  # skipped: beyond MAX_SITEMAP_FILES
MAX_LISTED = 20  # sitemap files listed by URL in the stats (per list); counts are complete
IN_SCOPE, NEW_HOST, REFUSED = "in_scope", "new_host", "refused"


def seeding_flags() -> dict[str, Any]:
    """The spider's seeding and scope state (kept with ``flags`` in the JOBDIR state)."""
    return {
        "seeding_pending": 0,  # seeding robots.txt and sitemap requests in flight
        "sitemap_files": set(),  # sitemap URLs requested
        "sitemaps_deferred": {},  # off-site sitemap URL -> None, until the scope is final
        "held": [],  # (url, original, depth) of start redirects waiting for their host's seeding
        "redirect_host": "",  # the one host the start URL's redirect added
        "sitemap_log": {"read": 0, "failed": {}, "skipped": {}},  # url -> reason
    }


def sitemap_file_url(loc: str, base: str) -> str:
    """The absolute URL of the sitemap file ``loc`` named in the file at ``base`` ("" when it is
    not an http(s) URL). Only resolved and cleaned: no parameter is stripped, no slash added."""
    try:
        url = normalize_url(loc, base, trailing_slash="keep", strip_params=())
    except ValueError:
        return ""
    parts = urlsplit(url)
    return url if parts.scheme in CRAWLABLE_SCHEMES and parts.hostname else ""


class ScopeMixin:
    """Redirect hops and sitemap scope of :class:`~linkpipe.lib.crawl.spider.LinkSpider`."""

    cfg: CrawlConfig
    frontier: Frontier
    flags: dict[str, Any]
    norm: dict[str, Any]
    redirects: RedirectTracker

    if TYPE_CHECKING:

        def _schedule(self, url: str, original: str, depth: int, exempt: bool = False,
                      source_pattern: str = "") -> list[scrapy.Request]: ...  # fmt: skip
        def _emit(self, records: Iterable[PageRecord]) -> None: ...
        def _sitemap_request(self, url: str, guessed: bool = False) -> scrapy.Request: ...
        def _hold(self, url: str, original: str, depth: int) -> list[scrapy.Request]: ...

    def _hop(
        self, record: PageRecord, location: str, depth: int, refresh: bool = False
    ) -> list[scrapy.Request]:
        """``record`` redirects (HTTP or meta refresh) to ``location``; crawl the target too."""
        try:
            target = normalize_url(location, record.url, **self.norm)
        except ValueError:
            target = ""
        if not target or not is_crawlable_scheme(target) or (target == record.url and refresh):
            return []
        original = urljoin(record.url, location)
        admitted = IN_SCOPE
        if record.url in self.flags["start_chain"]:
            admitted = self._admit(target)
            if admitted != REFUSED:
                self.flags["start_chain"].add(target)
        self._emit(self.redirects.hop(record, target))
        if admitted == REFUSED:
            self._emit(self.redirects.terminal(target))
            return []
        if admitted == NEW_HOST and self.cfg.use_sitemap:
            return self._hold(target, original, depth)  # after the new host's sitemaps
        return self._schedule(target, original, depth, exempt=True)

    def _admit(self, target: str) -> str:
        """Whether a hop of the start URL's chain to ``target`` stays on the site, adds the one
        redirect host (e.g. http -> https, example.com -> www.), or is refused."""
        if same_site(target, self.frontier.hosts, self.cfg.allow_subdomains):
            return IN_SCOPE
        if self.flags["redirect_host"]:
            self.frontier.skipped[SECOND_REDIRECT_HOST] += 1
            return REFUSED
        self.flags["redirect_host"] = url_host(target)
        self.frontier.hosts.add(url_host(target))
        return NEW_HOST

    def _sitemap_requests(
        self, locs: Iterable[str], base: str, guessed: bool = False
    ) -> list[scrapy.Request]:
        """Requests for the sitemap files ``locs`` named in the file at ``base``: those on the
        site, not requested yet, within :data:`MAX_SITEMAP_FILES`. Others are deferred (another
        host) or recorded as skipped."""
        requests: list[scrapy.Request] = []
        files, deferred = self.flags["sitemap_files"], self.flags["sitemaps_deferred"]
        for loc in locs:
            url = sitemap_file_url(loc, base)
            if not url:
                self._skip_sitemap(loc.strip()[:200], SITEMAP_BAD_URL)
            elif url in files or url in deferred:
                continue
            elif not same_site(url, self.frontier.hosts, self.cfg.allow_subdomains):
                if len(deferred) < MAX_SITEMAP_FILES:
                    deferred[url] = None
                else:
                    self._skip_sitemap(url, SITEMAP_OFF_HOST)
            elif len(files) >= MAX_SITEMAP_FILES:
                self._skip_sitemap(url, SITEMAP_FILES_LIMIT)
            else:
                requests.append(self._sitemap_request(url, guessed))
        return requests

    def _deferred_in_scope(self) -> list[str]:
        """Deferred sitemap URLs that the redirect host brought on the site (now taken)."""
        deferred: dict[str, None] = self.flags["sitemaps_deferred"]
        ready = [
            url
            for url in deferred
            if same_site(url, self.frontier.hosts, self.cfg.allow_subdomains)
        ]
        for url in ready:
            del deferred[url]
        return ready

    def _skip_sitemap(self, url: str, reason: str) -> None:
        self.frontier.skipped[reason] += 1
        listed = self.flags["sitemap_log"]["skipped"]
        if len(listed) < MAX_LISTED:
            listed.setdefault(url, reason)

    def _sitemap_failed(self, url: str, reason: str) -> None:
        self.flags["sitemap_log"]["failed"][url] = reason

    def sitemap_stats(self) -> tuple[dict[str, int], dict[str, Any]]:
        """Skip counts to add to the crawl's ``skipped``, and the ``sitemap_files`` summary:
        files requested and read, and by URL (at most :data:`MAX_LISTED`) those that failed
        (unreachable, HTTP error, malformed: what was read before the problem is kept) or were
        skipped."""
        log = self.flags["sitemap_log"]
        deferred = list(self.flags["sitemaps_deferred"])
        skipped = dict(log["skipped"])
        for url in deferred[: max(0, MAX_LISTED - len(skipped))]:
            skipped[url] = SITEMAP_OFF_HOST
        failed = dict(list(log["failed"].items())[:MAX_LISTED])
        summary = {
            "requested": len(self.flags["sitemap_files"]),
            "read": log["read"],
            "failed_count": len(log["failed"]),
            "failed": failed,
            "skipped": skipped,
        }
        return ({SITEMAP_OFF_HOST: len(deferred)} if deferred else {}), summary
