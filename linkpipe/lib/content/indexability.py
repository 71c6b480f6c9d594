"""Which crawled URLs take part in link suggestions, and why the others do not.

Rules run in a fixed order; the first that matches gives the exclusion reason. The thin,
listing and near-duplicate thresholds are "auto" by default: measured on the crawl itself
(:mod:`linkpipe.lib.content.site_thresholds`), recorded with it, and quoted in each exclusion's
detail. Defaults are documented in docs/architecture.md (section "Indexable-page rules").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from linkpipe.lib.content.main_area import TextFacts, text_facts
from linkpipe.lib.content.page_types import PageTypeRules
from linkpipe.lib.content.site_thresholds import (
    AUTO,
    ThinRule,
    Threshold,
    listing_threshold,
    near_duplicate_threshold,
    thin_thresholds,
)

SOLID_TYPES = ("home", "commercial")  # never re-typed as listings by their link density


# A crawl_pages row (sql/read/select_pages_for_indexability.sql) with its decoded ``html``, or
# instead the ``facts`` (TextFacts) an earlier crawl stored for the same HTML.
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
    link_share: float | None  # the page's TextFacts (None when the rules did not read its text)
    main_links: int | None
    child_links: int | None
    text_key: str | None
    simhash: int | None


@dataclass
class IndexabilityRules:
    """Configurable exclusion rules (see module docstring for their order); "auto" thresholds
    are measured on the crawl, a number fixes them."""

    type_rules: PageTypeRules = field(default_factory=PageTypeRules)
    excluded_types: tuple[str, ...] = ("utility", "listing")
    min_words: int | Literal["auto"] = AUTO  # fewer main-area words: thin
    thin_median_share: float = 0.5  # auto: this share of the median page's words ...
    thin_floor_words: int = 20  # ... but never below (a 5-word page is always thin)
    thin_cap_words: int = 60  # ... and never above (the fixed rule it replaces)
    listing_link_share: float | Literal["auto"] = AUTO  # main text this much links: a listing
    listing_min_links: int = 8
    near_duplicate_max_bits: int | Literal["auto"] = AUTO  # SimHash bits apart: near duplicate
    auto_min_pages: int = 10  # fewer pages to measure: an auto threshold takes its fixed default

    def thin_rule(self) -> ThinRule:
        """How the thin threshold is found."""
        return ThinRule(
            _configured(self.min_words),
            self.thin_median_share,
            self.thin_floor_words,
            self.thin_cap_words,
            self.auto_min_pages,
        )


def _configured(value: float | str) -> Any:
    """A threshold set in the settings, or None for "auto"."""
    return None if value == AUTO else value


def listing_evidence(quick: TextFacts, share: Threshold, min_links: int) -> str | None:
    """Why the page is a listing, or None: mostly links (at least ``share`` of its main text,
    in ``min_links`` links or more), or a section index whose main area mostly links to pages
    below it."""
    if quick.links >= min_links and quick.link_share >= share.value:
        return f"{quick.link_share:.0%} of the main text in {quick.links} links, {share.label()}"
    if (
        quick.child_links >= 5
        and quick.child_links >= 0.6 * quick.links
        and quick.link_share >= 0.2
    ):
        return f"section index: {quick.child_links} of its {quick.links} links lead below it"
    return None


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


@dataclass
class SiteClassification:
    """Every page's row and the thresholds the rules used on this site."""

    rows: list[IndexableRow]
    thresholds: list[Threshold]  # listing, thin (site first, then page types), near_duplicate
    reused: int = 0  # pages judged by the facts an earlier crawl measured on the same HTML


def classify_pages(
    pages: Iterable[PageRow], rules: IndexabilityRules | None = None
) -> list[IndexableRow]:
    """One ``indexable_pages`` row per page (crawl_pages columns plus decoded ``html``)."""
    return classify_site(pages, rules).rows


def classify_site(
    pages: Iterable[PageRow], rules: IndexabilityRules | None = None
) -> SiteClassification:
    """:func:`classify_pages` with the thresholds measured on these pages."""
    rules = rules or IndexabilityRules()
    judged = [_judge(page, rules) for page in pages]
    listing = _mark_listings(judged, rules)
    thin = _mark_thin(judged, rules)
    rows = [j.row for j in judged]
    _mark_parameter_duplicates(rows)
    near = _mark_duplicates(judged, rules)
    for row in rows:
        row["indexable"] = row["reason"] is None
    reused = sum(j.reused for j in judged)
    return SiteClassification(rows, [listing, *thin, near], reused)


@dataclass
class _Judged:
    """A page's row with what the rules that compare pages need."""

    row: IndexableRow
    depth: int
    quick: TextFacts
    has_html: bool  # imported without HTML (Screaming Frog): no text to judge thinness by
    reused: bool = False  # its facts are an earlier crawl's


def page_text_facts(page: PageRow) -> TextFacts:
    """The page's stored ``facts`` when an earlier crawl had the same HTML, else measured."""
    stored: TextFacts | None = page.get("facts")
    return stored if stored is not None else text_facts(page.get("html") or "", page["url"])


def _judge(page: PageRow, rules: IndexabilityRules) -> _Judged:
    """The page's row by the rules that need no other page: fetch, canonical, URL type."""
    reason, detail = _fetch_reason(page)
    quick = page_text_facts(page) if reason is None else None
    page_type = rules.type_rules.classify(page["url"], page.get("page_type") or "")
    if reason == "canonicalised" and page_type in rules.excluded_types:
        reason = page_type  # a search page canonicalised to /search/ is first a utility page
    elif reason == "canonicalised" and detail == _without_query(page["url"]):
        reason = "parameter_duplicate"
    row = IndexableRow(
        url=page["url"],
        shard=page["shard"],
        indexable=False,
        reason=reason,
        detail=detail,
        page_type=page_type,
        word_count=quick.word_count if quick else 0,
        content_hash=page.get("content_hash") or "",
        title=page.get("title") or "",
        link_share=quick.link_share if quick else None,
        main_links=quick.links if quick else None,
        child_links=quick.child_links if quick else None,
        text_key=quick.text_key if quick else None,
        simhash=quick.simhash if quick else None,
    )
    reused = quick is not None and page.get("facts") is not None
    has_html = bool(page.get("html")) or page.get("facts") is not None
    return _Judged(row, page.get("depth") or 0, quick or TextFacts(), has_html, reused)


def _mark_listings(judged: list[_Judged], rules: IndexabilityRules) -> Threshold:
    """Pages that are listings by their content, then the excluded page types; the link-share
    threshold is measured on the pages with text that no URL pattern excludes."""
    open_pages = [
        j for j in judged if j.row["reason"] is None and j.row["page_type"] not in SOLID_TYPES
    ]
    shares = [
        j.quick.link_share
        for j in open_pages
        if j.row["word_count"] and j.row["page_type"] not in rules.excluded_types
    ]
    share = listing_threshold(
        np.array(shares), _configured(rules.listing_link_share), rules.auto_min_pages
    )
    evidence: dict[str, str] = {}  # url: why its content makes it a listing
    for page in open_pages:
        found = listing_evidence(page.quick, share, rules.listing_min_links)
        if found is not None:
            page.row["page_type"], evidence[page.row["url"]] = "listing", found
    for page in judged:
        if page.row["reason"] is None and page.row["page_type"] in rules.excluded_types:
            page.row["reason"] = page.row["page_type"]
            page.row["detail"] = evidence.get(page.row["url"], page.row["detail"])
    return share


def _mark_thin(judged: list[_Judged], rules: IndexabilityRules) -> list[Threshold]:
    """Pages with fewer words than their threshold (their page type's, else the site's)."""
    measured = [j.row for j in judged if j.row["reason"] is None and j.has_html]
    thresholds = thin_thresholds(
        np.array([r["word_count"] for r in measured]),
        [r["page_type"] for r in measured],
        rules.thin_rule(),
    )
    by_type = {t.page_type: t for t in thresholds}
    for row in measured:
        threshold = by_type.get(row["page_type"], thresholds[0])
        if row["word_count"] < threshold.value:
            row["reason"] = "thin"
            row["detail"] = f"{row['word_count']} words, {threshold.label()}"
    return thresholds


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


def _mark_duplicates(judged: list[_Judged], rules: IndexabilityRules) -> Threshold:
    """Same text: "duplicate" of the group's representative; SimHash within the near-duplicate
    threshold (measured on the representatives) of an earlier one: "near_duplicate"."""

    def compared() -> list[int]:
        return [i for i, j in enumerate(judged) if j.quick.text_key and j.row["reason"] is None]

    def key(i: int) -> tuple[int, int, int, str]:
        return _representative_key(judged[i])

    groups: dict[str, list[int]] = defaultdict(list)
    for i in compared():
        groups[judged[i].quick.text_key].append(i)
    for members in groups.values():
        members.sort(key=key)
        for i in members[1:]:
            judged[i].row["reason"] = "duplicate"
            judged[i].row["detail"] = judged[members[0]].row["url"]
    order = sorted((i for i in compared() if judged[i].quick.simhash), key=key)
    threshold = near_duplicate_threshold(
        np.array([judged[i].quick.simhash for i in order], dtype=np.uint64),
        _configured(rules.near_duplicate_max_bits),
        rules.auto_min_pages,
    )
    _mark_near_duplicates(judged, order, threshold)
    return threshold


def _mark_near_duplicates(judged: list[_Judged], order: list[int], threshold: Threshold) -> None:
    """Each page within ``threshold`` bits of an earlier representative (LSH bands: two
    fingerprints within k bits agree on one of k + 1 bands)."""
    max_bits = int(threshold.value)
    bands: dict[tuple[int, int], list[int]] = defaultdict(list)
    band_bits = 64 // (max_bits + 1)
    for i in order:
        h = judged[i].quick.simhash
        keys = [(b, (h >> (b * band_bits)) & ((1 << band_bits) - 1)) for b in range(max_bits + 1)]
        candidates = sorted({j for band in keys for j in bands[band]})
        distances = ((j, (h ^ judged[j].quick.simhash).bit_count()) for j in candidates)
        twin = next(((j, d) for j, d in distances if d <= max_bits), None)
        if twin is not None:
            judged[i].row["reason"] = "near_duplicate"
            bits = "1 bit" if twin[1] == 1 else f"{twin[1]} bits"
            judged[i].row["detail"] = (
                f"{judged[twin[0]].row['url']}, {bits} apart; {threshold.label()}"
            )
            continue
        for band in keys:
            bands[band].append(i)
