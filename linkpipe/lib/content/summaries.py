"""A page's identity as one compact text: title, H1, slug words, lead, headings, key sentences.

The summary is what gets embedded. It is bounded in words (a proxy for model tokens) so that
long pages do not get truncated arbitrarily by the model and short pages are not diluted.
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import unquote, urlsplit

from linkpipe.lib.content.extraction import MainContent
from linkpipe.lib.text.stopwords import STOPWORDS

WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
SLUG_SPLIT_RE = re.compile(r"[-_./]+")


def slug_words(url: str) -> str:
    """Words of the URL path's last meaningful segment(s), e.g. ``/blog/old-posts/`` -> ``old posts``."""
    path = unquote(urlsplit(url).path)
    segments = [s for s in path.split("/") if s and not s.isdigit()]
    segments = [re.sub(r"\.(html?|php|aspx?)$", "", s) for s in segments[-1:]]
    words = [w for s in segments for w in SLUG_SPLIT_RE.split(s) if w and not w.isdigit()]
    return " ".join(words)


def content_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` without stopwords."""
    return [w for w in (m.lower() for m in WORD_RE.findall(text)) if w not in STOPWORDS]


def key_sentences(content: MainContent, limit: int) -> list[str]:
    """The ``limit`` paragraph sentences with the most frequent content words, in page order."""
    freq = Counter(content_words(content.text))
    scored = []
    for pos, sent in enumerate(content.sentences):
        if sent.block_kind == "heading":
            continue
        words = content_words(sent.text)
        if len(words) < 4:
            continue
        score = sum(freq[w] for w in set(words)) / (len(set(words)) ** 0.5)
        scored.append((score, pos, sent.text))
    best = sorted(scored, reverse=True)[:limit]
    return [text for _, _, text in sorted(best, key=lambda t: t[1])]


def _truncate_words(text: str, max_words: int) -> str:
    words = text.split()
    return " ".join(words[:max_words])


def build_summary(
    url: str,
    title: str,
    h1: str,
    meta_description: str,
    content: MainContent,
    max_words: int = 180,
) -> str:
    """Compact identity text of a page, at most ``max_words`` words."""
    parts: list[str] = []
    for piece in (title, h1 if h1 and h1.lower() not in title.lower() else "", slug_words(url)):
        if piece and piece.strip():
            parts.append(piece.strip().rstrip(".") + ".")
    if meta_description:
        parts.append(_truncate_words(meta_description, 40))
    lead = next(
        (content.text[b.start : b.end] for b in content.blocks if b.kind == "paragraph"), ""
    )
    if lead:
        parts.append(_truncate_words(lead, 60))
    headings = [content.text[b.start : b.end] for b in content.blocks if b.kind == "heading"]
    headings = [h for h in headings if h.lower() not in (title.lower(), h1.lower())][:8]
    if headings:
        parts.append("Sections: " + "; ".join(headings) + ".")
    for sentence in key_sentences(content, limit=6):
        if sentence not in lead:
            parts.append(sentence)
    return _truncate_words(" ".join(parts), max_words)


TITLE_SEPARATORS_RE = re.compile(r"\s+(?:\||-|\u2013|\u2014|::|\u00b7)\s+")


PAREN_SUFFIX_RE = re.compile(r"\s*(\([^()]*\))\s*$")  # "FileReader (Java SE 17 & JDK 17)"


def site_title_affixes(titles: list[str], min_share: float = 0.3, min_pages: int = 3) -> set[str]:
    """Title segments (site names) repeated on at least ``min_share`` of the pages: first or
    last segments between separators, and a closing parenthesised group."""
    counts: Counter[str] = Counter()
    for title in titles:
        parts = TITLE_SEPARATORS_RE.split(title.strip())
        segments = {parts[0].strip(), parts[-1].strip()} if len(parts) > 1 else set()
        paren = PAREN_SUFFIX_RE.search(title.strip())
        if paren and paren.start() > 0:
            segments.add(paren.group(1))
        counts.update(segments)
    floor = max(min_pages, min_share * len(titles))
    return {seg for seg, n in counts.items() if n >= floor}


def clean_title(title: str, affixes: set[str]) -> str:
    """``title`` without leading/trailing site-name segments (a shared closing parenthesised
    group first: "FileReader (Java SE 17 & JDK 17)" is "FileReader")."""
    title = title.strip()
    paren = PAREN_SUFFIX_RE.search(title)
    if paren and paren.start() > 0 and paren.group(1) in affixes:
        title = title[: paren.start()].rstrip()
    parts = [p.strip() for p in TITLE_SEPARATORS_RE.split(title)]
    while len(parts) > 1 and parts[-1] in affixes:
        parts.pop()
    while len(parts) > 1 and parts[0] in affixes:
        parts.pop(0)
    return " - ".join(parts) if len(parts) > 1 else parts[0]
