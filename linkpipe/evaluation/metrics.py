"""Metrics of the link-recovery evaluation: ranked suggestions scored against removed links.

* recall@k: share of ground-truth pairs whose target is within the first k suggestions of the source.
* precision@k (k = 1, 10): over sources with ground truth, mean of (ground-truth hits in its top
  k) / k; precision@1 is the share of those sources whose first suggestion is a removed link.
* anchor overlap: share of pairs recovered in the top 10 whose suggested anchor shares at least one
  content word (stemmed, stop words and digits out) with one of the removed link texts of the pair;
  a suggestion without an anchor counts as no overlap. None for methods without anchors.
* repeat share: share of all top-10 suggestions whose pair is still linked in content.
* recall@k ceiling: the best recall@k any ranking can reach, sum over sources of
  min(k, ground-truth pairs of the source) / pairs: a source with more removed links than k
  suggestions caps it (hub pages such as an API reference's package index).
"""

from __future__ import annotations

from collections import Counter

from linkpipe.lib.text.lexical import TOKEN_RE, stem
from linkpipe.lib.text.stopwords import STOPWORDS

Pair = tuple[str, str]  # (source, target) page paths
# source -> [(target, anchor or None)], best first
Rankings = dict[str, list[tuple[str, str | None]]]
Metrics = dict[str, float | int | None]  # metric name -> value (None: not applicable)


def content_words(text: str) -> set[str]:
    """Stemmed words of ``text`` without stop words and numbers."""
    words = (m.group().lower() for m in TOKEN_RE.finditer(text or ""))
    return {stem(w) for w in words if w not in STOPWORDS and not w.replace(".", "").isdigit()}


def anchor_overlaps(anchor: str | None, link_texts: list[str]) -> bool:
    """Whether a suggested anchor shares a content word with one of the removed link texts."""
    if not anchor:
        return False
    return any(content_words(anchor) & content_words(text) for text in link_texts)


def recall_ceiling(truth: dict[Pair, list[str]], k: int = 10) -> float:
    """The highest recall@k a ranking of k suggestions per source can reach on ``truth``."""
    per_source = Counter(s for s, _ in truth)
    return sum(min(k, n) for n in per_source.values()) / len(truth) if truth else 0.0


def evaluate_rankings(
    rankings: Rankings,
    truth: dict[Pair, list[str]],
    still_linked: set[Pair],
    ks: tuple[int, ...] = (1, 5, 10),
    with_anchors: bool = True,
) -> Metrics:
    """recall@k, precision@1 and @10, anchor overlap and repeat share of ranked suggestions."""
    top: dict[str, list[tuple[str, str | None]]] = {}
    for source, items in rankings.items():
        seen: dict[str, str | None] = {}
        for target, anchor in items:
            if target != source and target not in seen:
                seen[target] = anchor
        top[source] = list(seen.items())
    ranks: dict[Pair, tuple[int, str | None]] = {}
    for s, t in truth:
        for i, (target, anchor) in enumerate(top.get(s, []), start=1):
            if target == t:
                ranks[(s, t)] = (i, anchor)
                break
    n = len(truth)
    result: Metrics = {
        f"recall@{k}": sum(r <= k for r, _ in ranks.values()) / n if n else 0.0 for k in ks
    }
    sources = sorted({s for s, _ in truth})
    for k in (1, 10):
        hits = Counter(s for (s, _), (r, _) in ranks.items() if r <= k)
        result[f"precision@{k}"] = (
            sum(hits[s] / k for s in sources) / len(sources) if sources else 0.0
        )
    recovered = [(pair, anchor) for pair, (r, anchor) in ranks.items() if r <= 10]
    if with_anchors:
        overlap = sum(anchor_overlaps(anchor, truth[pair]) for pair, anchor in recovered)
        result["anchor_overlap"] = overlap / len(recovered) if recovered else 0.0
    else:
        result["anchor_overlap"] = None
    shown = [(s, t) for s, items in top.items() for t, _ in items[:10]]
    repeats = sum(pair in still_linked for pair in shown)
    result["repeat_share"] = repeats / len(shown) if shown else 0.0
    result.update(pairs=n, sources=len(sources), recovered_at_10=len(recovered))
    result["suggestions"] = len(shown)
    return result
