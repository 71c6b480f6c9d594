"""Parse a fetched page once with selectolax (lexbor): metadata plus every link with its position
(decoding the bytes first is :func:`linkpipe.lib.html.decoding.decode_body`)."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from linkpipe.lib.hashing import text_hash
from linkpipe.lib.html.layout_hints import class_hint, main_content_nodes
from linkpipe.lib.records import NOFOLLOW_RELS, LinkPosition, LinkRecord
from linkpipe.lib.urls import (
    DEFAULT_STRIP_PARAMS,
    TrailingSlash,
    cached_normalize,
    is_crawlable_scheme,
    same_site,
)

# Elements whose links form one "block" (the unit that template detection compares across pages).
BLOCK_TAGS = frozenset(
    "p ul ol dl menu nav table div section header footer aside article main body form blockquote "
    "figure details h1 h2 h3 h4 h5 h6".split()
)
SECTIONING_TAGS = frozenset({"article", "section", "main"})
# JSON-LD types present on every page of a site, which say nothing about the page itself.
GENERIC_LD_TYPES = frozenset(
    "WebSite Organization BreadcrumbList SiteNavigationElement ImageObject SearchAction ListItem "
    "EntryPoint Person WPHeader WPFooter WPSideBar".split()
)
_REFRESH_RE = re.compile(r"""^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(["']?)(.+?)\1\s*$""", re.I)


@dataclass
class ParsedPage:
    """What one parse of a page yields."""

    title: str = ""
    h1: str = ""
    meta_description: str = ""
    canonical: str = ""
    meta_robots: str = ""
    hreflang: list[dict[str, str]] = field(default_factory=list)
    page_type: str = ""
    meta_refresh: str = ""  # absolute, normalized target of <meta http-equiv=refresh> ("" if none)
    links: list[LinkRecord] = field(default_factory=list)
    skipped_links: int = 0  # hrefs with a non-crawlable scheme (mailto:, javascript:...)
    hrefs: list[str] = field(default_factory=list)  # each link's href as written (for original_url)
    base_url: str = ""  # what relative hrefs resolve against (<base href> or the page URL)


def collapse(text: str) -> str:
    """Whitespace collapsed to single spaces, stripped."""
    return " ".join(text.split())


def _ld_types(scripts: list[LexborNode]) -> list[str]:
    found: list[str] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, list):
            for item in obj:
                walk(item)
        elif isinstance(obj, dict):
            kind = obj.get("@type")
            if isinstance(kind, list):
                kind = kind[0] if kind else None
            if isinstance(kind, str):
                found.append(kind)
            if "@graph" in obj:
                walk(obj["@graph"])

    for script in scripts:
        if (script.attributes.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            walk(json.loads(script.text(deep=True) or "null"))
        except (ValueError, RecursionError):
            continue
    return found


_State = tuple[LinkPosition | None, bool, int]  # position, inside sectioning content, block


class _Context:
    """Memoized landmark position and link block for the ancestors of the page's links."""

    def __init__(self, unhinted: set[int]) -> None:
        self.unhinted = unhinted  # main-content block and its ancestors: names are not read
        # mem_id -> (position or None, inside sectioning content, block mem_id)
        self.memo: dict[int, _State] = {}
        self.blocks: dict[int, LexborNode] = {}

    def of(self, node: LexborNode | None) -> _State:
        chain: list[LexborNode] = []
        while node is not None and node.mem_id not in self.memo and node.tag != "-document":
            chain.append(node)
            node = node.parent
        known = node is not None and node.mem_id in self.memo
        state = self.memo[node.mem_id] if known else (None, False, 0)  # type: ignore[union-attr]
        for item in reversed(chain):
            state = self._step(item, state)
            self.memo[item.mem_id] = state
        return state

    def _step(self, node: LexborNode, parent: _State) -> _State:
        position, sectioned, block = parent
        tag = node.tag or ""
        if tag in BLOCK_TAGS:
            block = node.mem_id
            self.blocks[block] = node
        if position == "navigation":
            return position, True, block
        role = (node.attributes.get("role") or "").strip().lower()
        if tag == "nav" or role == "navigation":
            return "navigation", True, block
        if tag == "aside" or role == "complementary":
            return "aside", True, block
        if role == "banner" or (tag == "header" and not sectioned):
            return "header", sectioned, block
        if role == "contentinfo" or (tag == "footer" and not sectioned):
            return "footer", sectioned, block
        hint = None if node.mem_id in self.unhinted else class_hint(node)
        if hint is not None and (position is None or hint == "navigation"):
            return hint, hint == "navigation" or sectioned, block
        return position, sectioned or tag in SECTIONING_TAGS, block


def _anchor(node: LexborNode) -> tuple[str, bool]:
    if node.tag == "area":
        return collapse(node.attributes.get("alt") or ""), True
    text = collapse(node.text(deep=True))
    if text:
        return text, False
    img = node.css_first("img")
    if img is not None:
        return collapse(img.attributes.get("alt") or ""), True
    label = node.attributes.get("aria-label") or node.attributes.get("title") or ""
    return collapse(label), False


def _meta_refresh_target(content: str) -> str:
    match = _REFRESH_RE.match(content or "")
    if not match:
        return ""
    target = match.group(2).strip()
    return "" if not target or target[0].isdigit() and target.replace(".", "").isdigit() else target


def _head(tree: LexborHTMLParser, page: ParsedPage, resolve: Callable[[str], str]) -> None:
    """Title, h1, meta tags, canonical, hreflang and page type (``resolve`` may raise ValueError)."""
    title = tree.css_first("head title") or tree.css_first("title")
    page.title = collapse(title.text(deep=True)) if title is not None else ""
    h1 = tree.css_first("h1")
    page.h1 = collapse(h1.text(deep=True)) if h1 is not None else ""
    og_type = ""
    for meta in tree.css("meta"):
        attrs = meta.attributes
        name = (attrs.get("name") or attrs.get("property") or "").strip().lower()
        content = collapse(attrs.get("content") or "")
        if name == "robots":
            page.meta_robots = ", ".join(filter(None, (page.meta_robots, content.lower())))
        elif name == "description" and not page.meta_description:
            page.meta_description = content
        elif name == "og:type" and not og_type:
            og_type = content
        elif (attrs.get("http-equiv") or "").strip().lower() == "refresh" and not page.meta_refresh:
            target = _meta_refresh_target(content)
            if target and is_crawlable_scheme(target):
                with contextlib.suppress(ValueError):
                    page.meta_refresh = resolve(target)
    for link in tree.css("link[href]"):
        attrs = link.attributes
        rels, href = (attrs.get("rel") or "").lower().split(), attrs.get("href") or ""
        with contextlib.suppress(ValueError):
            if "canonical" in rels and not page.canonical and is_crawlable_scheme(href):
                page.canonical = resolve(href)
            elif "alternate" in rels and attrs.get("hreflang"):
                lang = (attrs.get("hreflang") or "").strip().lower()
                page.hreflang.append({"lang": lang, "url": resolve(href)})
    types = _ld_types(tree.css("script"))
    specific = [t for t in types if t not in GENERIC_LD_TYPES]
    page.page_type = (specific or types or [og_type])[0]


def parse_page(
    html: str,
    page_url: str,
    hosts: Collection[str],
    *,
    allow_subdomains: bool = False,
    trailing_slash: TrailingSlash = "keep",
    strip_params: Collection[str] = DEFAULT_STRIP_PARAMS,
) -> ParsedPage:
    """Metadata and links of one HTML page (``page_url`` is the page's normalized URL)."""
    params = frozenset(strip_params)
    tree = LexborHTMLParser(html or "")
    page = ParsedPage()

    def norm(href: str, base: str) -> str:
        # the cache key drops the parts of ``base`` that cannot change the result
        if href.startswith(("http://", "https://")):
            base = ""
        elif href.startswith("/") and not href.startswith("//"):
            base = base[: base.find("/", base.find("//") + 2) + 1] or base
        return cached_normalize(href, base or None, trailing_slash, params)

    base = page_url
    base_node = tree.css_first("base[href]")
    if base_node is not None:
        with contextlib.suppress(ValueError):
            base = norm(base_node.attributes.get("href") or "", page_url)
    _head(tree, page, lambda href: norm(href, base))
    page.base_url = base
    page.links = _links(tree, page_url, base, hosts, allow_subdomains, norm, page)
    return page


def _links(
    tree: LexborHTMLParser, page_url: str, base: str, hosts: Collection[str],
    allow_subdomains: bool, norm: Callable[[str, str], str], page: ParsedPage,
) -> list[LinkRecord]:  # fmt: skip
    """Every <a href>/<area href> with a crawlable target, with position and block."""
    context = _Context(main_content_nodes(tree))
    links: list[LinkRecord] = []
    link_blocks: list[int] = []
    internal_cache: dict[str, bool] = {}
    for node in tree.css("a[href], area[href]"):
        href = (node.attributes.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        if not is_crawlable_scheme(href):
            page.skipped_links += 1
            continue
        try:
            target = norm(href, base)
        except ValueError:
            page.skipped_links += 1
            continue
        netloc = target.split("/", 3)[2] if target.startswith("http") else target
        internal = internal_cache.get(netloc)
        if internal is None:
            internal = internal_cache[netloc] = same_site(target, hosts, allow_subdomains)
        rel = collapse(node.attributes.get("rel") or "").lower()
        anchor, is_image = _anchor(node)
        position, _sectioned, block = context.of(node.parent)
        nofollow = bool(NOFOLLOW_RELS.intersection(rel.split()))
        position = position or "content"
        links.append(
            LinkRecord(page_url, target, anchor, rel, nofollow, position, is_image, internal)
        )
        link_blocks.append(block)
        page.hrefs.append(href)
    _assign_block_ids(links, link_blocks, context.blocks)
    return links


def _assign_block_ids(
    links: list[LinkRecord], link_blocks: list[int], blocks: dict[int, LexborNode]
) -> None:
    """``block_id`` = ordinal of the block on the page + hash of its text and link targets."""
    targets: dict[int, list[str]] = {}
    for link, block in zip(links, link_blocks, strict=True):
        targets.setdefault(block, []).append(link.target_url + "\x1f" + link.anchor_text)
    ids: dict[int, str] = {}
    for ordinal, (block, pairs) in enumerate(targets.items()):
        node = blocks.get(block)
        text = collapse(node.text(deep=True)) if node is not None else ""
        signature = text_hash("\x1e".join([text, *sorted(pairs)]))
        ids[block] = f"{ordinal}:{signature[:12]}"
    for link, block in zip(links, link_blocks, strict=True):
        link.block_id = ids[block]
