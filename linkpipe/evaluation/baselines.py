"""The three baselines of the link-recovery evaluation, on the same pages as linkpipe.

* tfidf: cosine of TF-IDF vectors of the page texts (English stop words, sublinear tf).
* title+tfidf: pages whose title occurs as a phrase in the source text first, then TF-IDF order.
  Titles lose section numbers, a site name after a separator and a parenthesised suffix that at
  least 30 % of the site's titles share (javadoc's "ArrayList (Java SE 17 & JDK 17)").
* cocitation: pages linked in content from the same pages as the source (ties: shared out-links).

Each leaves out pairs already linked in content, as linkpipe does.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

from linkpipe.evaluation.metrics import Pair, Rankings
from linkpipe.lib.text.stopwords import STOPWORDS

PAREN_SUFFIX_RE = re.compile(r"\s*\([^()]*\)\s*$")


def _top_k(
    pages: list[str], scores: np.ndarray, row: int, excluded: set[Pair], k: int
) -> list[tuple[str, str | None]]:
    """The ``k`` best-scored pages for page ``row`` (positive scores only, excluded pairs out)."""
    source = pages[row]
    out: list[tuple[str, str | None]] = []
    for j in np.argsort(-scores, kind="stable"):
        if scores[j] <= 0 or len(out) >= k:
            break
        if j != row and (source, pages[j]) not in excluded:
            out.append((pages[j], None))
    return out


def _tfidf_scores(texts: list[str]) -> np.ndarray:
    """Dense matrix of TF-IDF cosines between the texts."""
    from sklearn.feature_extraction.text import TfidfVectorizer  # evaluation only: ~1 s import

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
    matrix = vectorizer.fit_transform(texts)
    cosines: np.ndarray = (matrix @ matrix.T).toarray()
    return cosines


def tfidf_baseline(texts: dict[str, str], excluded: set[Pair], k: int = 10) -> Rankings:
    """Each page's k most TF-IDF-similar pages (cosine of page texts), excluded pairs left out."""
    pages = sorted(texts)
    if not pages:
        return {}
    sims = _tfidf_scores([texts[p] for p in pages])
    return {p: _top_k(pages, sims[i], i, excluded, k) for i, p in enumerate(pages)}


def title_phrase(title: str) -> tuple[str, ...]:
    """Lower-case words of a title without section numbers and site suffixes; () if too weak."""
    title = re.split(r"\s+[—|–]\s+|\s+-\s+", title or "")[0]
    title = re.sub(r"^\s*(?:[A-Z]\.)?(?:\d+\.)*\d*\.?\s+", "", title)
    words = tuple(w.lower() for w in re.findall(r"\w+", title))
    return words if any(w not in STOPWORDS and not w.isdigit() for w in words) else ()


def site_title_suffix(titles: Iterable[str], min_share: float = 0.3, min_pages: int = 3) -> str:
    """The parenthesised suffix (`` (Java SE 17 & JDK 17)``) ending at least ``min_share`` of
    the titles and ``min_pages`` of them; "" when there is none."""
    titles = list(titles)
    counts = Counter(m.group() for t in titles if (m := PAREN_SUFFIX_RE.search(t or "")))
    floor = max(min_pages, min_share * len(titles))
    common = [suffix for suffix, n in counts.most_common(1) if n >= floor]
    return common[0] if common else ""


def title_mentions(texts: dict[str, str], titles: dict[str, str]) -> set[Pair]:
    """(source, target) pairs where the target's title phrase (the site's common parenthesised
    suffix removed) occurs in the source's text."""
    suffix = site_title_suffix(titles.values())
    by_phrase: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for page, title in titles.items():
        if suffix and title.endswith(suffix):
            title = title[: -len(suffix)]
        if phrase := title_phrase(title):
            by_phrase[phrase].add(page)
    lengths = sorted({len(p) for p in by_phrase})
    found: set[Pair] = set()
    for source, text in texts.items():
        words = [w.lower() for w in re.findall(r"\w+", text or "")]
        for n in lengths:
            for i in range(len(words) - n + 1):
                for target in by_phrase.get(tuple(words[i : i + n]), ()):
                    if target != source:
                        found.add((source, target))
    return found


def title_tfidf_baseline(
    texts: dict[str, str], titles: dict[str, str], excluded: set[Pair], k: int = 10
) -> Rankings:
    """Pages whose title occurs in the source text first, each group ordered by TF-IDF cosine."""
    pages = sorted(texts)
    if not pages:
        return {}
    sims = _tfidf_scores([texts[p] for p in pages])
    col = {p: j for j, p in enumerate(pages)}
    for source, target in title_mentions(texts, {p: titles.get(p, "") for p in pages}):
        sims[col[source], col[target]] += 1.0 + 1e-9  # a title hit outranks any cosine
    return {p: _top_k(pages, sims[i], i, excluded, k) for i, p in enumerate(pages)}


def cocitation_baseline(
    links: dict[str, set[str]], pages: Iterable[str], excluded: set[Pair], k: int = 10
) -> Rankings:
    """Targets ranked by pages linking to both (co-citation), then shared out-links, then path."""
    pages = set(pages)
    cited_by: dict[str, set[str]] = defaultdict(set)
    for src, targets in links.items():
        for t in targets:
            cited_by[t].add(src)
    rankings: Rankings = {}
    for source in sorted(pages):
        cocited: Counter[str] = Counter()
        for citer in cited_by.get(source, ()):
            cocited.update(links.get(citer, ()))
        coupled: Counter[str] = Counter()
        for t in links.get(source, ()):
            coupled.update(cited_by.get(t, ()))
        candidates = (set(cocited) | set(coupled)) & pages
        candidates = {t for t in candidates if t != source and (source, t) not in excluded}
        best = sorted(candidates, key=lambda t: (-cocited[t], -coupled[t], t))[:k]
        rankings[source] = [(t, None) for t in best]
    return rankings
