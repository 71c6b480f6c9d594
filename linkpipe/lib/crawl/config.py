"""Crawl settings, the result handle and the error raised when a crawl yields nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TypedDict

from linkpipe.lib.records import LinkRecord, PageRecord
from linkpipe.lib.urls import DEFAULT_STRIP_PARAMS, TrailingSlash

PAGES_FILE = "pages.jsonl"
LINKS_FILE = "links.jsonl"
STATS_FILE = "stats.json"
CONFIG_FILE = "crawl_config.json"
PREVIOUS_FILE = "previous.jsonl"
PARSES_FILE = "parses.jsonl"
PROGRESS_PREFIX = "LINKPIPE-PROGRESS"  # a stderr line of the worker: "<prefix> done queued"


class PreviousPage(TypedDict, total=False):
    """What a conditional recrawl reuses of one page of the previous crawl: validators for the
    request, and the content to keep when the answer is 304 Not Modified."""

    etag: str
    last_modified: str
    content_hash: str
    html: str  # or, as stored, html_z
    html_z: bytes
    parse_z: bytes  # the crawler's stored parse (lib/crawl/stored_parse.py), if any
    carry: bool  # kept in the previous crawl's own rows (earlier code): a 304 stores them anew
    html_at: list[int]  # in the previous crawl's file: [offset, bytes] of the HTML
    parse_at: list[int]  # and of the stored parse
    content_type: str
    charset: str
    byte_size: int


class CrawlError(RuntimeError):
    """The crawl produced nothing usable (start URL unreachable, no HTML page...)."""


@dataclass
class CrawlConfig:
    """What to crawl and within which bounds."""

    start_url: str
    max_pages: int = 10_000  # URLs fetched (redirect hops included)
    max_depth: int = 50  # link hops from the start URL
    max_bytes: int = 5_000_000  # bodies beyond this are cut and flagged truncated
    request_timeout_s: float = 20.0
    total_time_s: float = 3600.0
    concurrency: int = 16
    user_agent: str = "linkpipe"
    obey_robots: bool = True  # robots.txt rules and its Crawl-delay (capped below)
    max_crawl_delay_s: float = 30.0
    allow_subdomains: bool = False
    extra_hosts: list[str] = field(default_factory=list)  # more hosts counted as the site
    use_sitemap: bool = True
    trailing_slash: TrailingSlash = "keep"
    strip_params: list[str] = field(default_factory=lambda: sorted(DEFAULT_STRIP_PARAMS))
    trap_cap_per_pattern: int = 500  # URLs fetched per url_pattern; 0 = no cap
    previous: dict[str, PreviousPage] = field(default_factory=dict)  # url -> its previous page
    previous_path: str = ""  # or the same as a JSONL file (see crawl.output.write_previous)
    job_dir: str = ""  # Scrapy JOBDIR, to pause (Ctrl-C / SIGTERM) and resume a crawl
    autothrottle: bool = False
    revalidate_first: bool = True  # a refresh's conditional requests by a plain client first
    retry_times: int = 2  # extra attempts after a 5xx/429 or a network error
    template_min_pages: int = 8  # see linkpipe.lib.html.templates
    template_min_share: float = 0.3
    seed_urls: list[str] = field(default_factory=list)  # fetched at depth 0 besides start_url

    def normalization(self) -> dict[str, Any]:
        """The keyword arguments of :func:`linkpipe.lib.urls.normalize_url` for this crawl."""
        return {"trailing_slash": self.trailing_slash, "strip_params": frozenset(self.strip_params)}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings, without ``previous`` (that travels as a file)."""
        data = asdict(self)
        data.pop("previous")
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CrawlConfig:
        """Inverse of :meth:`to_dict` (unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class CrawlResult:
    """Handle on a finished crawl's files; records are read lazily, one line at a time."""

    out_dir: Path
    stats: dict[str, Any]

    @property
    def pages_path(self) -> Path:
        return self.out_dir / PAGES_FILE

    @property
    def links_path(self) -> Path:
        return self.out_dir / LINKS_FILE

    def iter_pages(self) -> Iterator[PageRecord]:
        """Every PageRecord of the crawl, in the order written."""
        with self.pages_path.open(encoding="utf-8") as handle:
            for line in handle:
                yield PageRecord(**json.loads(line))

    def iter_parses(self) -> Iterator[dict[str, str]]:
        """``{"url", "content_hash", "parse_z"?}`` of every HTML page the crawl parsed or took
        the previous crawl's parse for (``parse_z`` base64, absent then)."""
        path = self.out_dir / PARSES_FILE
        if path.exists():
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    yield json.loads(line)

    def iter_links(self) -> Iterator[LinkRecord]:
        """Every LinkRecord of the crawl, grouped by source page."""
        with self.links_path.open(encoding="utf-8") as handle:
            for line in handle:
                yield LinkRecord(**json.loads(line))
