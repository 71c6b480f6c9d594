"""Readable topic-cluster labels: the phrases that set a cluster apart (class-based TF-IDF).

Each page offers phrases of one to three words from its title, H1 and other headings: runs of
consecutive words without stopwords, generic words ("guide", "tips", "step") or numbers, cut
into n-grams. A phrase counts once per page: 1 when in the title or H1, :data:`HEADING_WEIGHT`
when only in another heading. Its class-based TF-IDF in cluster ``c`` is
``tf(c) * log(1 + A / f)``: ``tf(c)`` its count in the cluster, ``f`` its count in all
clusters, ``A`` the mean count of all phrases per cluster (as in BERTopic's c-TF-IDF). Longer
phrases get a bonus; phrases that every cluster has (a site name) are left out. The label is the
best two or three phrases, those several pages share first, none inside another ("mask" after
"layer mask"); ties are broken by the phrase text, so the same pages always get the same label.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from linkpipe.lib.text.stopwords import STOPWORDS

WORD_RE = re.compile(r"[^\W_][\w'\-]*", re.UNICODE)
BREAK_RE = re.compile(r"[^\w\s'\-]+|\s-+\s|_")  # punctuation ends a phrase: "Masks | Site"
GENERIC_WORDS = frozenset(
    """actually really guide guides tips tip ways things thing step steps part chapter best top
    complete ultimate simple easy introduction intro overview basics basic matters notes
    every first second third five ten three four etc vs via why how what adding using creating
    working getting understanding explained introducing learn learning""".split()
)
"""Words that say nothing about a topic; they end a phrase like stopwords do."""
_ENDS_RUN = STOPWORDS | GENERIC_WORDS  # made once (a union per token: a fifth of the labels)
HEADING_WEIGHT = 0.5  # a phrase only in a page's other headings counts half
LENGTH_BONUS = 0.25  # per word beyond the first
MAX_WORDS = 3
MIN_PHRASES = 2  # a label takes phrases of a single page until it has this many
FALLBACK_LABEL = "misc"


@dataclass(frozen=True, slots=True)
class PageHeadings:
    """The text a page offers to its cluster's label."""

    title: str
    h1: str = ""
    headings: tuple[str, ...] = ()


@functools.lru_cache(maxsize=1 << 16)
def _normal(word: str) -> str:
    """``word`` without a plural ending ("audits" and "audit", "brushes" and "brush" count as
    one)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("shes", "ches", "xes", "sses", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=1 << 16)
def phrases(text: str) -> tuple[tuple[str, str], ...]:
    """(key, surface) of every phrase of one to :data:`MAX_WORDS` words of ``text`` (kept for
    the texts seen last: half of a site's titles and headings are another page's, or the
    page's own title again as its H1)."""
    return tuple(
        phrase
        for part in BREAK_RE.split(text)
        for phrase in _run_phrases(m.lower().strip("'-") for m in WORD_RE.findall(part))
    )


def _run_phrases(tokens: Iterable[str]) -> Iterable[tuple[str, str]]:
    """(key, surface) of the n-grams of each run of topic words among ``tokens``."""
    run: list[str] = []
    for token in [*tokens, ""]:
        if len(token) > 1 and not token.isdigit() and token not in _ENDS_RUN:
            run.append(token)
            continue
        for n in range(1, MAX_WORDS + 1):
            for i in range(len(run) - n + 1):
                words = run[i : i + n]
                yield " ".join(_normal(w) for w in words), " ".join(words)
        run = []


def page_terms(page: PageHeadings, surfaces: Counter[tuple[str, str]]) -> dict[str, float]:
    """Each phrase key of ``page`` with its weight; counts surface spellings in ``surfaces``."""
    weights: dict[str, float] = {}
    for text in (page.title, page.h1):
        for key, surface in phrases(text):
            weights[key] = 1.0
            surfaces[key, surface] += 1
    for heading in page.headings:
        for key, surface in phrases(heading):
            weights.setdefault(key, HEADING_WEIGHT)
            surfaces[key, surface] += 1
    return weights


def cluster_labels(
    clusters: Mapping[int, Sequence[PageHeadings]], per_label: int = 3
) -> dict[int, str]:
    """A label per cluster id: its ``per_label`` most distinctive phrases joined by " / "."""
    surfaces: Counter[tuple[str, str]] = Counter()
    tf: dict[int, dict[str, float]] = {}
    pages_with: dict[int, Counter[str]] = {}
    for c, pages in sorted(clusters.items()):
        tf[c], pages_with[c] = defaultdict(float), Counter()
        for page in pages:
            for key, weight in page_terms(page, surfaces).items():
                tf[c][key] += weight
                pages_with[c][key] += 1
    total: Counter[str] = Counter()
    clusters_with: Counter[str] = Counter()
    for counts in tf.values():
        total.update(counts)
        clusters_with.update(counts.keys())
    mean = sum(total.values()) / max(1, len(tf))
    spelling = _spellings(surfaces)
    labels = {}
    for c, counts in tf.items():
        scored = [
            (pages_with[c][k] == 1, -round(w * math.log(1 + mean / total[k]) * _bonus(k), 9), k)
            for k, w in counts.items()
            if clusters_with[k] < len(tf) or len(tf) == 1
        ]
        chosen = _distinct(sorted(scored), pages_with[c], per_label)
        labels[c] = " / ".join(spelling[k] for k in chosen) or FALLBACK_LABEL
    return labels


def _spellings(surfaces: Counter[tuple[str, str]]) -> dict[str, str]:
    """The most used spelling of each phrase key (ties: the first alphabetically)."""
    best: dict[str, tuple[int, str]] = {}
    for (key, surface), count in surfaces.items():
        if key not in best or (-count, surface) < (-best[key][0], best[key][1]):
            best[key] = (count, surface)
    return {key: surface for key, (_, surface) in best.items()}


def _bonus(key: str) -> float:
    """The weight of a phrase's length: longer phrases read better as labels."""
    return 1 + LENGTH_BONUS * key.count(" ")


def _distinct(ranked: list[tuple[bool, float, str]], pages: Counter[str], limit: int) -> list[str]:
    """The first ``limit`` phrase keys of ``ranked`` that neither hold nor are held by one taken
    before ("mask" after "layer mask"); phrases of a single page, sharing no word with those
    taken, only while fewer than :data:`MIN_PHRASES` are taken; a single word grows into its best phrase shared by at least
    half as many pages ("mask" into "layer mask")."""
    chosen: list[str] = []
    for single, _, key in ranked:
        if len(chosen) == limit or (single and len(chosen) >= MIN_PHRASES):
            break
        if _overlaps(key, chosen) or (single and set(key.split()) & _words(chosen)):
            continue
        chosen.append(key if " " in key else _grown(key, ranked, pages, chosen))
    return chosen


def _words(chosen: list[str]) -> set[str]:
    """Every word of the phrases of ``chosen``."""
    return {w for c in chosen for w in c.split()}


def _overlaps(key: str, chosen: list[str]) -> bool:
    """Whether the words of ``key`` hold, or are held by, those of a phrase of ``chosen``."""
    words = set(key.split())
    return any(words <= set(c.split()) or words >= set(c.split()) for c in chosen)


def _grown(
    word: str, ranked: list[tuple[bool, float, str]], pages: Counter[str], chosen: list[str]
) -> str:
    """The best-ranked longer phrase with ``word``, shared by at least two pages and half the
    pages that have ``word``, that overlaps no phrase of ``chosen``; else ``word``."""
    least = max(2, pages[word] / 2)
    for _, _, key in ranked:
        words = key.split()
        if len(words) > 1 and word in words and pages[key] >= least and not _overlaps(key, chosen):
            return key
    return word
