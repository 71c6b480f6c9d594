"""Thin, listing and near-duplicate thresholds measured on the site itself.

A fixed rule suits one kind of site: "fewer than 60 words is thin" is right for a blog's
40-word stubs and wrong for a reference site whose median page has 56 words. Each threshold is
"auto" by default: derived from the crawl's own distribution, and bounded so that it is never
stricter than the fixed rule it replaces (60 words, 50 % link text, 3 SimHash bits). A number
in the settings fixes it. Every threshold used is a :class:`Threshold` that says how it was found;
docs/architecture.md ("Indexable-page rules") gives the reasons for each constant.

Pure functions over numpy arrays; no database, no Dagster.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

import numpy as np

AUTO: Literal["auto"] = "auto"
Mode = Literal["auto", "config", "default"]

LISTING_SHARE_FLOOR = 0.5  # the fixed rule: auto is never stricter
LISTING_SHARE_CAP = 0.9  # on a site of link lists, a page still needs 90 % link text
LISTING_MARGIN = 0.3  # a listing has this much more link text than the site's median page
NEAR_DUPLICATE_CAP_BITS = 3  # the fixed rule: auto is never looser
NEAR_DUPLICATE_SPREAD = 2.0  # SimHash noise (sd ~ sqrt(bits)) below the median nearest distance
NEAREST_SAMPLE = 500  # pages whose nearest fingerprint is measured (evenly spaced)
_CELLS_PER_CHUNK = 4_000_000  # fingerprint pairs compared at once (32 MB of uint64)


class ThresholdRow(TypedDict):
    """One ``indexability_thresholds`` row (without its crawl_id)."""

    rule: str
    page_type: str | None
    threshold: float
    mode: str
    median: float | None
    pages: int
    basis: str


@dataclass(frozen=True)
class Threshold:
    """A threshold one rule used, and how it was found."""

    rule: Literal["thin", "listing", "near_duplicate"]
    value: float  # thin: fewer words is thin; listing: this link share or more; bits: at most
    mode: Mode  # auto (measured), config (set in the settings), default (too few pages)
    basis: str  # "0.5 x median 56 words", "set in config", ...
    pages: int = 0  # pages measured
    median: float | None = None  # of the measured distribution; None when not measured
    page_type: str | None = None  # thin only: the page type measured apart; None: the site

    @property
    def shown(self) -> str:
        """The value as an editor reads it: 28, 65 %, 3."""
        return f"{self.value:.0%}" if self.rule == "listing" else f"{self.value:g}"

    def label(self) -> str:
        """The threshold as an exclusion's detail quotes it: site threshold 28 (0.5 x ...)."""
        scope = self.page_type or "site"
        return f"{scope} threshold {self.shown} ({self.basis})"

    def row(self) -> ThresholdRow:
        """The stored row."""
        return ThresholdRow(
            rule=self.rule,
            page_type=self.page_type,
            threshold=self.value,
            mode=self.mode,
            median=self.median,
            pages=self.pages,
            basis=self.basis,
        )


@dataclass(frozen=True)
class ThinRule:
    """How the thin threshold is found (fields of IndexabilityRules)."""

    configured: int | None = None  # a number set in the settings; None: auto
    median_share: float = 0.5
    floor_words: int = 20
    cap_words: int = 60
    min_pages: int = 10


def _too_few(pages: int, min_pages: int, kind: str = "") -> str:
    """The basis of a fixed default: "default: 2 pages, fewer than 10 to measure"."""
    noun = f"{kind} page" if kind else "page"
    return f"default: {pages} {noun}{'' if pages == 1 else 's'}, fewer than {min_pages} to measure"


def _bounded(
    raw: float, floor: float, cap: float, formula: str, unit: str = ""
) -> tuple[float, str]:
    """``raw`` within [floor, cap], and the basis that says which bound applied (``unit``
    "%" shows the bounds as percentages)."""

    def shown(bound: float) -> str:
        return f"{bound:.0%}" if unit == "%" else f"{bound:g}"

    if raw > cap:
        return cap, f"cap {shown(cap)}, below {formula}"
    if raw < floor:
        return floor, f"floor {shown(floor)}, above {formula}"
    return raw, formula


def thin_thresholds(
    word_counts: np.ndarray, page_types: Sequence[str], rule: ThinRule
) -> list[Threshold]:
    """The site's thin threshold first, then one per page type of at least ``min_pages``
    pages (a section of short glossary entries next to long articles); other page types use
    the site's. Auto: ``median_share`` x the median word count, within [floor, cap]."""
    counts = np.asarray(word_counts, dtype=np.float64)
    if rule.configured is not None:
        return [Threshold("thin", rule.configured, "config", "set in config", len(counts))]
    site = _thin(counts, None, rule)
    if site.mode != "auto":
        return [site]
    types = np.asarray(page_types, dtype=object)
    measured = [site]
    for page_type in sorted(set(page_types)):
        of_type = counts[types == page_type]
        if rule.min_pages <= len(of_type) < len(counts):
            measured.append(_thin(of_type, page_type, rule))
    return measured


def _thin(counts: np.ndarray, page_type: str | None, rule: ThinRule) -> Threshold:
    pages = len(counts)
    if pages < max(rule.min_pages, 1):
        basis = _too_few(pages, rule.min_pages, page_type or "")
        return Threshold("thin", rule.cap_words, "default", basis, pages, page_type=page_type)
    median = float(np.median(counts))
    formula = f"{rule.median_share:g} x median {median:g} words"
    raw = math.floor(rule.median_share * median + 0.5)
    value, basis = _bounded(raw, rule.floor_words, rule.cap_words, formula)
    return Threshold("thin", value, "auto", basis, pages, median, page_type)


def listing_threshold(
    link_shares: np.ndarray, configured: float | None, min_pages: int
) -> Threshold:
    """Share of the main text in links from which a page is a listing. Auto: the site's median
    share plus 30 points, within [50 %, 90 %]: a reference site whose pages are a third links
    keeps them, a blog's archive pages stay listings."""
    shares = np.asarray(link_shares, dtype=np.float64)
    pages = len(shares)
    if configured is not None:
        return Threshold("listing", configured, "config", "set in config", pages)
    if pages < max(min_pages, 1):
        return Threshold(
            "listing", LISTING_SHARE_FLOOR, "default", _too_few(pages, min_pages), pages
        )
    median = float(np.median(shares))
    formula = f"median {median:.0%} + {LISTING_MARGIN * 100:g} points"
    raw = round(median + LISTING_MARGIN, 4)
    value, basis = _bounded(raw, LISTING_SHARE_FLOOR, LISTING_SHARE_CAP, formula, "%")
    return Threshold("listing", value, "auto", basis, pages, median)


def near_duplicate_threshold(
    fingerprints: np.ndarray, configured: int | None, min_pages: int
) -> Threshold:
    """SimHash bits within which two pages are near duplicates. Auto: the median distance m
    from a page to its nearest other page, less two standard deviations of SimHash noise
    (differing bits are a binomial count: sd ~ sqrt(m)), from 0 to 3. Unrelated texts lie
    ~20-30 bits apart, so most sites keep 3; on a templated site, where every page is a few
    bits from a sibling, only pages much closer than that count."""
    prints = np.asarray(fingerprints, dtype=np.uint64)
    pages = len(prints)
    if configured is not None:
        return Threshold("near_duplicate", configured, "config", "set in config", pages)
    if pages < max(min_pages, 2):
        basis = _too_few(pages, min_pages)
        return Threshold("near_duplicate", NEAR_DUPLICATE_CAP_BITS, "default", basis, pages)
    median = float(np.median(nearest_distances(prints)))
    formula = (
        f"median nearest distance {median:g} bits - {NEAR_DUPLICATE_SPREAD:g} x sqrt({median:g})"
    )
    raw = math.floor(median - NEAR_DUPLICATE_SPREAD * math.sqrt(median))
    value, basis = _bounded(raw, 0, NEAR_DUPLICATE_CAP_BITS, formula)
    return Threshold("near_duplicate", value, "auto", basis, pages, median)


def nearest_distances(fingerprints: np.ndarray, sample: int = NEAREST_SAMPLE) -> np.ndarray:
    """Hamming distance from each of up to ``sample`` fingerprints (evenly spaced, so the same
    input gives the same answer) to the nearest other fingerprint; empty below two."""
    prints = np.asarray(fingerprints, dtype=np.uint64)
    total = len(prints)
    if total < 2:
        return np.empty(0, dtype=np.int64)
    picks = np.unique(np.linspace(0, total - 1, min(total, sample)).astype(np.int64))
    nearest = np.empty(len(picks), dtype=np.int64)
    chunk = max(1, _CELLS_PER_CHUNK // total)
    for start in range(0, len(picks), chunk):
        rows = picks[start : start + chunk]
        distances = np.bitwise_count(prints[rows, None] ^ prints[None, :]).astype(np.int64)
        distances[np.arange(len(rows)), rows] = 65  # a page is not its own neighbour
        nearest[start : start + len(rows)] = distances.min(axis=1)
    return nearest
