"""Lexical evidence: tokens, light stemming, phrase keys and generic anchors (TF-IDF is in
:mod:`linkpipe.lib.text.tfidf`)."""

from __future__ import annotations

import functools
import re

from linkpipe.lib.text.stopwords import STOPWORDS

TOKEN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*|[^\W\d_]+", re.UNICODE)
GENERIC_ANCHORS = frozenset(
    """click here|here|read more|more|learn more|this page|this article|this post|this link|
    link|continue reading|see more|find out more|details|more info|more information|go|next|
    previous|home|page|website|source|this|that|it""".replace("\n", "").split("|")
)


@functools.lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """A light English stem: possessive 's, plural, -ing, -ed and final -e removed ("updating" =
    "update").

    Cached: a site's words are Zipf-distributed, so most calls are repeats."""
    w = word.lower().strip("'-")
    if w.endswith("'s"):  # a possessive: "ikiwiki's" is "ikiwiki", "boss's" is "boss"
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif (
        w.endswith("sses")
        or len(w) > 4
        and (w.endswith(("ches", "shes")) or (w.endswith("es") and w[-3] in "sxz"))
    ):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def tokens_with_offsets(text: str) -> list[tuple[str, int, int]]:
    """(stem, start, end) for every word of ``text``."""
    return [(stem(m.group()), m.start(), m.end()) for m in TOKEN_RE.finditer(text)]


@functools.lru_cache(maxsize=1 << 16)
def phrase_key(text: str) -> tuple[str, ...]:
    """Normalised token tuple of a phrase, for exact phrase lookup (cached: a target's
    names are keyed again by every process that profiles it, several times each)."""
    return tuple(stem(m.group()) for m in TOKEN_RE.finditer(text))


@functools.lru_cache(maxsize=1 << 16)
def is_generic_anchor(text: str) -> bool:
    """True for anchors that say nothing about the target ("click here", "read more", ...)."""
    norm = " ".join(text.lower().split()).strip(" .,:;!?")
    return norm in GENERIC_ANCHORS or not any(stem(w) not in STOPWORDS for w in norm.split())
