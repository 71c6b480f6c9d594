"""The main area of a page as the indexability rules measure it: its visible text, how much
of it is link text, and its SimHash fingerprint (near-identical texts get fingerprints a few
bits apart). :class:`TextFacts` is what the rules keep of it, stored with the crawl and reused
by the next one while the page's HTML is unchanged (:func:`facts_digest` names the code)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from linkpipe.lib.hashing import code_digest, text_hash

BOILERPLATE_TAGS = "script, style, noscript, nav, header, footer, aside, form, template, svg"
WORD_RE = re.compile(r"\w+", re.UNICODE)


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


@dataclass(frozen=True, slots=True)
class TextFacts:
    """What the indexability rules read of a page's main area."""

    word_count: int = 0
    link_share: float = 0.0  # share of the main text inside links
    links: int = 0  # links in the main area
    child_links: int = 0  # of which point below the page's own path
    text_key: str = ""  # text_hash of the lower-cased main text; "" when it has no text
    simhash: int = 0  # of its words; 0 when it has none


def text_facts(html: str, url: str) -> TextFacts:
    """The :class:`TextFacts` of a page's HTML."""
    quick = quick_text(html, url)
    if not quick.text:
        return TextFacts(0, quick.link_share, quick.links, quick.child_links)
    words = WORD_RE.findall(quick.text)
    return TextFacts(
        len(words), quick.link_share, quick.links, quick.child_links,
        text_hash(quick.text.lower()), simhash_of_words([w.lower() for w in words]),
    )  # fmt: skip


def facts_digest() -> str:
    """Digest of the code and library versions :func:`text_facts` depends on: stored facts are
    reused only when it is the current one."""
    return code_digest(("linkpipe.lib.content.main_area", "linkpipe.lib.hashing"), ("selectolax",))
