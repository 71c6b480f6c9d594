"""Which crawled URLs take part in link suggestions, and why the others do not.

Rules run in a fixed order; the first that matches gives the exclusion reason. Defaults are
documented in docs/architecture.md (section "Indexable-page rules").
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser

from linkpipe.lib.content.page_types import PageTypeRules

BOILERPLATE_TAGS = "script, style, noscript, nav, header, footer, aside, form, template, svg"
WORD_RE = re.compile(r"\w+", re.UNICODE)


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
    children = sum(
        1
        for a in anchors
        if _is_child(urlsplit(urljoin(url, a.attributes.get("href") or "")).path, path)
    )
    return QuickText(text, linked / len(text) if text else 0.0, len(anchors), children)


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
    """64-bit SimHash over word shingles."""
    words = [w.lower() for w in WORD_RE.findall(text)]
    if not words:
        return 0
    weights = [0] * 64
    grams = max(1, len(words) - shingle + 1)
    for i in range(grams):
        gram = " ".join(words[i : i + shingle])
        h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "big")
        for bit in range(64):
            weights[bit] += 1 if (h >> bit) & 1 else -1
    return sum(1 << bit for bit in range(64) if weights[bit] > 0)


def _without_query(url: str) -> str:
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, p.path, "", ""))


def _is_noindex(value: str) -> bool:
    tokens = {t.strip() for t in (value or "").lower().replace(";", ",").split(",")}
    return "noindex" in tokens or "none" in tokens


def _fetch_reason(page: dict[str, Any]) -> tuple[str | None, str]:
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
    pages: Iterable[dict[str, Any]], rules: IndexabilityRules | None = None
) -> list[dict[str, Any]]:
    """One ``indexable_pages`` row per page dict (crawl_pages columns plus decoded ``html``)."""
    rules = rules or IndexabilityRules()
    rows: list[dict[str, Any]] = []
    text_hashes: dict[int, str] = {}
    hashes: dict[int, int] = {}
    for page in pages:
        reason, detail = _fetch_reason(page)
        quick = quick_text(page.get("html") or "", page["url"]) if reason is None else QuickText()
        text = quick.text
        page_type = rules.type_rules.classify(page["url"], page.get("page_type") or "")
        if reason == "canonicalised" and page_type in rules.excluded_types:
            reason = page_type  # a search page canonicalised to /search/ is first a utility page
        elif reason == "canonicalised" and detail == _without_query(page["url"]):
            reason = "parameter_duplicate"
        if reason is None and page_type not in ("home", "commercial") and is_listing(quick, rules):
            page_type = "listing"
        row = {
            "url": page["url"],
            "shard": page["shard"],
            "indexable": False,
            "reason": reason,
            "detail": detail,
            "page_type": page_type,
            "word_count": len(WORD_RE.findall(text)),
            "content_hash": page.get("content_hash") or "",
            "title": page.get("title") or "",
            "_depth": page.get("depth") or 0,
        }
        if reason is None and page_type in rules.excluded_types:
            row["reason"] = page_type
        elif reason is None and not page.get("html"):
            pass  # imported without HTML (Screaming Frog): no text to judge thinness by
        elif reason is None and row["word_count"] < rules.min_words:
            row["reason"], row["detail"] = "thin", f"{row['word_count']} words"
        if row["reason"] is None and text:
            idx = len(rows)
            text_hashes[idx] = hashlib.sha1(text.lower().encode()).hexdigest()
            hashes[idx] = simhash(text)
        rows.append(row)
    _mark_parameter_duplicates(rows)
    _mark_duplicates(rows, text_hashes, hashes, rules.near_duplicate_max_bits)
    for row in rows:
        row["indexable"] = row["reason"] is None
        row.pop("_depth")
    return rows


def _mark_parameter_duplicates(rows: list[dict[str, Any]]) -> None:
    by_url = {r["url"]: r for r in rows}
    for row in rows:
        if row["reason"] is not None or not urlsplit(row["url"]).query:
            continue
        base = _without_query(row["url"])
        if base in by_url and base != row["url"]:
            row["reason"], row["detail"] = "parameter_duplicate", base


def _representative_key(row: dict[str, Any]) -> tuple[int, int, int, str]:
    return (bool(urlsplit(row["url"]).query), row["_depth"], len(row["url"]), row["url"])


def _mark_duplicates(
    rows: list[dict[str, Any]], text_hashes: dict[int, str], hashes: dict[int, int], max_bits: int
) -> None:
    groups: dict[str, list[int]] = defaultdict(list)
    for idx, h in text_hashes.items():
        if rows[idx]["reason"] is None:
            groups[h].append(idx)
    for members in groups.values():
        members.sort(key=lambda i: _representative_key(rows[i]))
        for i in members[1:]:
            rows[i]["reason"], rows[i]["detail"] = "duplicate", rows[members[0]]["url"]
    alive = sorted(
        (i for i in hashes if rows[i]["reason"] is None),
        key=lambda i: _representative_key(rows[i]),
    )
    bands: dict[tuple[int, int], list[int]] = defaultdict(list)
    band_bits = 64 // (max_bits + 1)
    for i in alive:
        h = hashes[i]
        if h == 0:
            continue
        candidates = set()
        for b in range(max_bits + 1):
            key = (b, (h >> (b * band_bits)) & ((1 << band_bits) - 1))
            candidates.update(bands[key])
        twin = next(
            (j for j in sorted(candidates) if bin(h ^ hashes[j]).count("1") <= max_bits), None
        )
        if twin is not None:
            rows[i]["reason"], rows[i]["detail"] = "near_duplicate", rows[twin]["url"]
            continue
        for b in range(max_bits + 1):
            bands[(b, (h >> (b * band_bits)) & ((1 << band_bits) - 1))].append(i)
