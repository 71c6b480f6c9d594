"""Which discovered URLs get fetched: dedup, site scope, depth, robots.txt, traps, page budget."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from protego import Protego

from linkpipe.lib.urls import has_query, has_repeating_segments, same_site, url_host, url_pattern

# decisions
FETCH = "fetch"
SEEN = "seen"
OFF_HOST = "off_host"
MAX_DEPTH = "max_depth"
TRAP = "trap"
ROBOTS = "robots"
ROBOTS_UNKNOWN = "robots_unknown"  # robots.txt of the host not fetched yet
MAX_PAGES = "max_pages"
CREDENTIALS = "credentials_in_url"  # a link with user:password@ is never fetched


@dataclass
class Frontier:
    """Scheduling state (picklable, so a JOBDIR crawl can resume with it)."""

    hosts: set[str]
    allow_subdomains: bool
    max_pages: int
    max_depth: int
    trap_cap: int
    obey_robots: bool
    user_agent: str
    seen: set[str] = field(default_factory=set)
    depth: dict[str, int] = field(default_factory=dict)  # scheduled, not yet fetched -> min depth
    patterns: Counter[str] = field(default_factory=Counter)
    scheduled: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    off_host: set[str] = field(default_factory=set)
    too_deep: set[str] = field(default_factory=set)
    trapped: dict[str, tuple[str, int]] = field(default_factory=dict)  # url -> (original, depth)
    robots_txt: dict[str, str | None] = field(default_factory=dict)  # host -> text (None: pending)
    waiting: dict[str, list[tuple[str, str, int, dict[str, Any]]]] = field(default_factory=dict)
    _parsers: dict[str, Protego] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_parsers"] = {}
        return state

    def decide(self, url: str, depth: int, exempt: bool = False, source_pattern: str = "") -> str:
        """What to do with ``url`` found at ``depth`` on a page whose url_pattern is ``source_pattern``.

        ``exempt`` (the start URL, redirect hops, sitemap URLs) skips the trap cap. The cap of
        ``trap_cap`` URLs per url_pattern applies to URLs that a page of the same pattern links to
        (calendars, "next" chains) and to URLs with a query (faceted navigation); numbered pages
        listed by pages of another pattern (products in a category) are not capped.
        """
        if url in self.seen:
            if url in self.depth and depth < self.depth[url]:
                self.depth[url] = depth
            return SEEN
        if "@" in urlsplit(url).netloc:
            return self._skip(url, CREDENTIALS)
        if url in self.off_host:
            return OFF_HOST
        if not same_site(url, self.hosts, self.allow_subdomains):
            if url not in self.off_host:
                self.off_host.add(url)
                self.skipped[OFF_HOST] += 1
            return OFF_HOST
        if depth > self.max_depth:
            if url not in self.too_deep:
                self.too_deep.add(url)
                self.skipped[MAX_DEPTH] += 1
            return MAX_DEPTH
        if self.obey_robots:
            host = url_host(url)
            if host not in self.robots_txt or self.robots_txt[host] is None:
                return ROBOTS_UNKNOWN
            if not self._parser(host).can_fetch(url, self.user_agent):
                return self._skip(url, ROBOTS)
        if not exempt and self.trap_cap:
            pattern = url_pattern(url)
            capped = pattern == source_pattern or has_query(url)
            if (capped and self.patterns[pattern] >= self.trap_cap) or has_repeating_segments(url):
                return TRAP  # not "seen": a later link from a listing page may still fetch it
            self.patterns[pattern] += 1
        if self.scheduled >= self.max_pages:
            return self._skip(url, MAX_PAGES)
        self.seen.add(url)
        self.trapped.pop(url, None)
        self.depth[url] = depth
        self.scheduled += 1
        return FETCH

    def _skip(self, url: str, reason: str) -> str:
        self.seen.add(url)
        self.skipped[reason] += 1
        return reason

    def fetched_depth(self, url: str, default: int) -> int:
        """The smallest depth ``url`` was found at, once its response is in."""
        return self.depth.pop(url, default)

    def set_robots(self, host: str, text: str) -> list[tuple[str, str, int, dict[str, Any]]]:
        """Store a host's robots.txt; returns the URLs that waited for it."""
        self.robots_txt[host] = text
        self._parsers.pop(host, None)
        return self.waiting.pop(host, [])

    def crawl_delay(self, host: str) -> float | None:
        """Seconds between requests that the host's robots.txt asks of this crawler, if any."""
        if not self.obey_robots or not self.robots_txt.get(host):
            return None
        delay = self._parser(host).crawl_delay(self.user_agent)
        return float(delay) if delay and delay > 0 else None

    def sitemap_urls(self, host: str) -> list[str]:
        """``Sitemap:`` lines of a host's robots.txt."""
        return list(self._parser(host).sitemaps) if self.robots_txt.get(host) else []

    def _parser(self, host: str) -> Protego:
        parser = self._parsers.get(host)
        if parser is None:
            parser = self._parsers[host] = Protego.parse(self.robots_txt.get(host) or "")
        return parser
