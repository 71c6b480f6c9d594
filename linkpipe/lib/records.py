"""Plain records passed between the crawler/importers and storage.

The crawler (``linkpipe.lib.crawl``) and every importer produce these; ``linkpipe.lib.storage``
writes them to ``crawl_pages`` / ``crawl_links``. Field names equal column names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# Where a link sits on its page (the HTML landmark around it, or an importer's column).
LinkPosition = Literal["content", "navigation", "header", "footer", "aside"]
# rel tokens that make a link nofollow (Google counts sponsored and ugc as hints of the same kind)
NOFOLLOW_RELS = frozenset({"nofollow", "sponsored", "ugc"})


@dataclass
class PageRecord:
    """One fetched (or known-but-not-fetched) URL of a crawl."""

    url: str  # normalized URL (the identity of the page in every table)
    original_url: str = ""  # the URL as first discovered, before normalization
    final_url: str = ""  # URL after following redirects ("" when not fetched)
    status: int = 0  # HTTP status of the first response; 0 = not fetched (see error)
    redirect_chain: list[str] = field(default_factory=list)  # every hop, incl. meta refresh
    redirect_loop: bool = False
    content_type: str = ""
    charset: str = ""
    canonical: str = ""  # absolute, normalized canonical URL ("" when none)
    meta_robots: str = ""  # lower-cased content of <meta name=robots>
    x_robots_tag: str = ""  # lower-cased X-Robots-Tag header
    hreflang: list[dict[str, str]] = field(default_factory=list)  # [{"lang":..,"url":..}]
    title: str = ""
    h1: str = ""
    meta_description: str = ""
    html: str = ""  # decoded HTML (storage compresses it); "" for a 304: the previous crawl's
    content_hash: str = ""  # sha1 of the decoded HTML body ("" when no body)
    depth: int = 0  # crawl depth (link hops from the start URL; sitemap seeds count as 1)
    fetched_at: str = ""  # ISO-8601 UTC
    response_ms: float = 0.0
    byte_size: int = 0  # bytes of the body as received (after decompression)
    truncated: bool = False  # body cut at the max-bytes limit
    in_sitemap: bool = False
    sitemap_lastmod: str = ""
    robots_disallowed: bool = False
    etag: str = ""
    last_modified: str = ""
    not_modified: bool = False  # 304 on a conditional recrawl; html/hash carried from before
    page_type: str = ""  # schema.org @type / og:type when the page declares one
    error: str = ""  # why the URL was not fetched or failed ("timeout", "dns", "trap", ...)

    def as_row(self) -> dict[str, Any]:
        """The record as a dict keyed by column name (a shallow copy: ``dataclasses.asdict``
        deep-copies every value, a third of the crawl's cost of storing 45,000 links)."""
        return dict(vars(self))


@dataclass
class LinkRecord:
    """One <a href> (or linked image) found on a fetched page."""

    source_url: str  # normalized URL of the page holding the link
    target_url: str  # normalized absolute target URL
    anchor_text: str = ""  # visible text (or the image's alt text)
    rel: str = ""  # lower-cased rel attribute
    nofollow: bool = False  # rel contains one of NOFOLLOW_RELS (or the importer says so)
    position: LinkPosition = "content"
    is_image: bool = False
    internal: bool = True  # target on one of the crawl's hosts
    block_id: str = ""  # "<ordinal on page>:<hash of block text + links>"; for template detection

    def as_row(self) -> dict[str, Any]:
        """The record as a dict keyed by column name (a shallow copy: ``dataclasses.asdict``
        deep-copies every value, a third of the crawl's cost of storing 45,000 links)."""
        return dict(vars(self))
