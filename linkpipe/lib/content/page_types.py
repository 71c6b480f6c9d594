"""Page types from configurable URL patterns and from what the page declares (schema.org, og:type)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

DEFAULT_TYPE_PATTERNS: dict[str, list[str]] = {
    "utility": [
        r"/search(/|$|\?)",
        r"[?&](q|s|query|search)=",
        r"/login",
        r"/log-in",
        r"/sign-?in",
        r"/sign-?up",
        r"/register",
        r"/account",
        r"/cart",
        r"/basket",
        r"/checkout",
        r"/wp-admin",
        r"/feed/?$",
        r"/thank-?you",
        r"/print/?$",
    ],
    "listing": [
        r"/category/",
        r"/categories/",
        r"/tag/",
        r"/tags/",
        r"/page/\d+",
        r"/archive",
        r"/author/",
        r"/\d{4}/(\d{2}/)?$",
    ],
    "commercial": [
        r"/services?/",
        r"/products?/",
        r"/pricing",
        r"/shop/",
        r"/store/",
        r"/plans?/",
        r"/buy",
        r"/demo/?$",
    ],
    "glossary": [r"/glossary/", r"/definitions?/", r"/what-is-", r"/terms?/[^/]+"],
    "guide": [r"/guides?/", r"/docs?/", r"/tutorials?/", r"/learn/", r"/how-to", r"/handbook/"],
    "blog": [r"/blog/", r"/news/", r"/articles?/", r"/posts?/", r"/stories/"],
}
COMMERCIAL_SCHEMA_TYPES = {"product", "service", "offer", "softwareapplication", "og:product"}
ARTICLE_SCHEMA_TYPES = {"article", "blogposting", "newsarticle", "techarticle", "howto"}


@dataclass
class PageTypeRules:
    """Ordered URL-pattern rules; the first type whose pattern matches wins."""

    patterns: dict[str, list[str]] = field(default_factory=lambda: dict(DEFAULT_TYPE_PATTERNS))

    def __post_init__(self) -> None:
        self._compiled = [
            (name, [re.compile(p, re.IGNORECASE) for p in pats])
            for name, pats in self.patterns.items()
        ]

    def classify(self, url: str, declared_type: str = "") -> str:
        """Type of the page at ``url``: home, utility, listing, commercial, glossary, guide,
        blog or page. A declared schema.org Product/Service makes a page commercial."""
        parts = urlsplit(url)
        path_q = parts.path + (f"?{parts.query}" if parts.query else "")
        if parts.path in ("", "/") and not parts.query:
            return "home"
        declared = declared_type.lower().strip()
        for name, regexes in self._compiled:
            if name in ("utility", "listing") and any(r.search(path_q) for r in regexes):
                return name
        if declared in COMMERCIAL_SCHEMA_TYPES:
            return "commercial"
        for name, regexes in self._compiled:
            if any(r.search(path_q) for r in regexes):
                return name
        if declared in ARTICLE_SCHEMA_TYPES or declared == "article":
            return "blog"
        return "page"
