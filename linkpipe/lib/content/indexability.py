"""Which crawled URLs take part in link suggestions, and why the others do not.

Rules run in a fixed order; the first that matches gives the exclusion reason. Defaults are
documented in docs/architecture.md (section "Indexable-page rules").
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict
from urllib.parse import urljoin, urlsplit, urlunsplit

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from linkpipe.lib.content.page_types import PageTypeRules
from linkpipe.lib.hashing import text_hash

BOILERPLATE_TAGS = "script, style, noscript, nav, header, footer, aside, form, template, svg"
WORD_RE = re.compile(r"\w+", re.UNICODE)


# A crawl_pages row (sql/read/select_pages_for_indexability.sql) with its decoded ``html``.
PageRow = Mapping[str, Any]


class IndexableRow(TypedDict):
    """One ``indexable_pages`` row."""

    url: str
    shard: int
    indexable: bool
    reason: str | None  # None when indexable; else the first exclusion rule that matched
    detail: str  # e.g. the canonical target or the duplicate's representative
    page_type: str
    word_count: int
    content_hash: str
    title: str


@dataclass
class IndexabilityRules:
    """Configurable exclusion rules (see module docstring for their order)."""

    type_rules: PageTypeRules = field(default_factory=PageTypeRules)
    excluded_types: tuple[str, ...] = ("utility", "listing")
    min_words: int = 60
    listing_link_share: float = 0.5  # main text mostly link text -> a listing page
    listing_min_links: int = 8
    near_duplicate_max_bits: int = 3  # SimHash Hamming distance counted as near duplicate


@dataclass
class QuickText:
    """Main-area text of a page and how much of it is links."""

    text: str = ""
    link_share: float = 0.0  # share of the text inside links
    links: int = 0  # links in the main area
    child_links: int = 0  # of which point below this page's own path (a section index)


def quick_text(html: str, url: str = "") -> QuickText:
    """Visible text of the main area without navigation, header, footer or scripts."""
    if not html:
        return QuickText()
    try:
        tree = LexborHTMLParser(html)
    except Exception:  # noqa: BLE001 - malformed input must never crash the stage
        return QuickText()
    root = tree.css_first("main") or tree.css_first("article") or tree.body
    if root is None:
        return QuickText()
    for node in root.css(BOILERPLATE_TAGS):
        node.decompose()
    text = " ".join(root.text(separator=" ").split())
    anchors = root.css("a[href]")
    linked = sum(len(" ".join(a.text(separator=" ").split())) for a in anchors)
    path = urlsplit(url).path or "/"
    children = sum(1 for a in anchors if _is_child(_link_path(url, a.attributes.get("href")), path))
    return QuickText(text, linked / len(text) if text else 0.0, len(anchors), children)


def _link_path(url: str, href: str | None) -> str:
    """The path a link points to; "" for a link no URL parser accepts ("http://[::1")."""
    try:
        return urlsplit(urljoin(url, href or "")).path
    except ValueError:
        return ""


def _is_child(link_path: str, page_path: str) -> bool:
    return (
        page_path.endswith("/")
        and page_path != "/"
        and link_path.startswith(page_path)
        and (len(link_path) > len(page_path))
    )


def is_listing(quick: QuickText, rules: IndexabilityRules) -> bool:
    """Mostly links, or a section index whose main area mostly links to pages below it."""
    if quick.links >= rules.listing_min_links and quick.link_share >= rules.listing_link_share:
        return True
    return (
        quick.child_links >= 5
        and quick.child_links >= 0.6 * quick.links
        and (quick.link_share >= 0.2)
    )


def simhash(text: str, shingle: int = 3) -> int:
    """64-bit SimHash over word shingles: bit b is set when more shingles have bit b set than
    not, each shingle hashed with 8-byte blake2b (read big-endian). The digests are counted per
    bit with numpy, not in a Python loop over 64 bits."""
    return simhash_of_words([w.lower() for w in WORD_RE.findall(text)], shingle)


def simhash_of_words(words: list[str], shingle: int = 3) -> int:
    """:func:`simhash` of a text given as its lower-cased words."""
    if not words:
        return 0
    shingles = (
        map(" ".join, zip(*(words[k:] for k in range(shingle)), strict=False))
        if len(words) >= shingle
        else [" ".join(words)]
    )
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(gram.encode(), digest_size=8).digest() for gram in shingles])
    grams = len(digests) // 8
    # Row i holds the 64 bits of digest i, most significant first: column j is bit 63 - j.
    bits = np.unpackbits(np.frombuffer(digests, dtype=np.uint8).reshape(grams, 8), axis=1)
    ones = bits.sum(axis=0, dtype=np.int64)[::-1]  # ones[b]: shingles with bit b set
    set_bits = np.flatnonzero(2 * ones > grams)
    return sum(1 << int(bit) for bit in set_bits)


def _without_query(url: str) -> str:
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, p.path, "", ""))


def _is_noindex(value: str) -> bool:
    tokens = {t.strip() for t in (value or "").lower().replace(";", ",").split(",")}
    return "noindex" in tokens or "none" in tokens


def _fetch_reason(page: PageRow) -> tuple[str | None, str]:
    """Reasons that depend only on the fetch: robots, errors, redirects, status, type."""
    status = page.get("status") or 0
    if page.get("robots_disallowed"):
        return "robots_disallowed", ""
    if page.get("redirect_loop"):
        return "redirect_loop", " -> ".join(page.get("redirect_chain") or [])
    if status in (301, 302, 303, 307, 308) or (
        page.get("final_url") and page["final_url"] != page["url"] and status != 200
    ):
        return "redirect", page.get("final_url") or ""
    if page.get("redirect_chain") and page.get("final_url") and page["final_url"] != page["url"]:
        return "redirect", page["final_url"]
    if status == 0:
        return "fetch_error", page.get("error") or "not fetched"
    if status != 200:
        return f"http_{status}", page.get("error") or ""
    ctype = (page.get("content_type") or "").lower()
    if ctype and "html" not in ctype:
        return "non_html", ctype
    if _is_noindex(page.get("meta_robots", "")) or _is_noindex(page.get("x_robots_tag", "")):
        return "noindex", page.get("meta_robots") or page.get("x_robots_tag") or ""
    canonical = page.get("canonical") or ""
    if canonical and canonical != page["url"]:
        return "canonicalised", canonical
    return None, ""


def classify_pages(
    pages: Iterable[PageRow], rules: IndexabilityRules | None = None
) -> list[IndexableRow]:
    """One ``indexable_pages`` row per page (crawl_pages columns plus decoded ``html``)."""
    rules = rules or IndexabilityRules()
    judged = [_judge(page, rules) for page in pages]
    rows = [j.row for j in judged]
    _mark_parameter_duplicates(rows)
    _mark_duplicates(judged, rules.near_duplicate_max_bits)
    for row in rows:
        row["indexable"] = row["reason"] is None
    return rows


@dataclass
class _Judged:
    """A page's row with what the duplicate rules compare."""

    row: IndexableRow
    depth: int
    text_key: str = ""  # text_hash of the lower-cased main text; "" when not compared
    simhash: int = 0


def _judge(page: PageRow, rules: IndexabilityRules) -> _Judged:
    """The page's row by every rule but the duplicate ones (which compare pages)."""
    reason, detail = _fetch_reason(page)
    quick = quick_text(page.get("html") or "", page["url"]) if reason is None else QuickText()
    page_type = rules.type_rules.classify(page["url"], page.get("page_type") or "")
    if reason == "canonicalised" and page_type in rules.excluded_types:
        reason = page_type  # a search page canonicalised to /search/ is first a utility page
    elif reason == "canonicalised" and detail == _without_query(page["url"]):
        reason = "parameter_duplicate"
    if reason is None and page_type not in ("home", "commercial") and is_listing(quick, rules):
        page_type = "listing"
    words = WORD_RE.findall(quick.text)
    word_count = len(words)
    if reason is None and page_type in rules.excluded_types:
        reason = page_type
    elif reason is None and page.get("html") and word_count < rules.min_words:
        # (imported without HTML, as from Screaming Frog: no text to judge thinness by)
        reason, detail = "thin", f"{word_count} words"
    row = IndexableRow(
        url=page["url"],
        shard=page["shard"],
        indexable=False,
        reason=reason,
        detail=detail,
        page_type=page_type,
        word_count=word_count,
        content_hash=page.get("content_hash") or "",
        title=page.get("title") or "",
    )
    judged = _Judged(row, page.get("depth") or 0)
    if reason is None and quick.text:
        judged.text_key = text_hash(quick.text.lower())
        judged.simhash = simhash_of_words([w.lower() for w in words])
    return judged


def _mark_parameter_duplicates(rows: list[IndexableRow]) -> None:
    by_url = {r["url"]: r for r in rows}
    for row in rows:
        if row["reason"] is not None or not urlsplit(row["url"]).query:
            continue
        base = _without_query(row["url"])
        if base in by_url and base != row["url"]:
            row["reason"], row["detail"] = "parameter_duplicate", base


def _representative_key(page: _Judged) -> tuple[int, int, int, str]:
    url = page.row["url"]
    return (bool(urlsplit(url).query), page.depth, len(url), url)


def _mark_duplicates(judged: list[_Judged], max_bits: int) -> None:
    """Same text: "duplicate" of the group's representative; SimHash within ``max_bits`` of an
    earlier representative: "near_duplicate"."""

    def compared() -> list[int]:
        return [i for i, j in enumerate(judged) if j.text_key and j.row["reason"] is None]

    def key(i: int) -> tuple[int, int, int, str]:
        return _representative_key(judged[i])

    groups: dict[str, list[int]] = defaultdict(list)
    for i in compared():
        groups[judged[i].text_key].append(i)
    for members in groups.values():
        members.sort(key=key)
        for i in members[1:]:
            judged[i].row["reason"] = "duplicate"
            judged[i].row["detail"] = judged[members[0]].row["url"]
    bands: dict[tuple[int, int], list[int]] = defaultdict(list)
    band_bits = 64 // (max_bits + 1)
    for i in sorted(compared(), key=key):
        h = judged[i].simhash
        if h == 0:
            continue
        keys = [(b, (h >> (b * band_bits)) & ((1 << band_bits) - 1)) for b in range(max_bits + 1)]
        candidates = sorted({j for band in keys for j in bands[band]})
        twin = next(
            (j for j in candidates if bin(h ^ judged[j].simhash).count("1") <= max_bits), None
        )
        if twin is not None:
            judged[i].row["reason"] = "near_duplicate"
            judged[i].row["detail"] = judged[twin].row["url"]
            continue
        for band in keys:
            bands[band].append(i)
