"""One evaluated crawl: what the evaluation reads from a crawl partition, linkpipe's rankings from
it, and every method's metrics against the links removed from the served copy.

Pages are compared by their path in the copy (see :class:`PathMap`); the baselines run on the
same indexable pages as linkpipe (see :mod:`linkpipe.evaluation.baselines`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from linkpipe.evaluation import baselines
from linkpipe.evaluation import link_removal as ev
from linkpipe.evaluation.anchor_quality import AnchorQuality, judge_anchors, opportunity_anchors
from linkpipe.evaluation.metrics import (
    Metrics,
    Pair,
    Rankings,
    evaluate_rankings,
    recall_ceiling,
)
from linkpipe.lib.links.opportunity_batches import Placer
from linkpipe.lib.links.rows import CandidatePair, LinkOpportunity
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.links.site_scoring import score_site
from linkpipe.lib.stages.link_opportunities import kept_anchors, load_candidates, load_page_facts
from linkpipe.lib.storage import fetch_dicts, open_db

EVAL_SCORING = ScoringConfig(max_per_source=10, max_per_target=10**6)

PairReport = dict[str, object]  # one ground-truth pair: its link texts and rank per method


@dataclass(frozen=True)
class EvalCrawl:
    """What the evaluation reads from a crawl partition (URL-keyed)."""

    facts: dict[str, PageFacts]  # indexable pages
    texts: dict[str, str]  # main text of the indexable pages
    content: dict[str, set[str]]  # source -> targets linked in content
    candidates: list[CandidatePair]
    placer: Placer | None = None  # places the kept pairs' windows, as link_opportunities does


def load_crawl(db: Path, crawl_id: str, model: str) -> EvalCrawl:
    """The pages, texts, content links and candidates of a crawl partition, with the placer
    of its kept pairs (``model``: the crawl's embedding model), which keeps what it placed
    for the next scoring."""
    with open_db(db) as con:
        facts = load_page_facts(con, crawl_id)
        summaries = fetch_dicts(con, "read/select_site_pages_for_candidates", [crawl_id])
        edges = fetch_dicts(con, "read/select_content_edges", [crawl_id])
        candidates = load_candidates(con, crawl_id)
    content: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e["position"] == "content":
            content[e["source_url"]].add(e["resolved_url"])
    texts = {s["url"]: s["main_text"] or "" for s in summaries if s["url"] in facts}
    placer = kept_anchors(db, crawl_id, model, reuse=True)
    placer.remember = True
    return EvalCrawl(facts, texts, content, candidates, placer)


def linkpipe_rankings(
    candidates: list[CandidatePair],
    facts: dict[str, PageFacts],
    config: ScoringConfig | None = None,
) -> Rankings:
    """linkpipe's suggestions per source, best first, with the product's scoring (the list per
    source 10 long and targets uncapped unless ``config`` says otherwise)."""
    return rankings_of(score_site(candidates, facts, {}, config or EVAL_SCORING).opportunities)


def rankings_of(rows: list[LinkOpportunity]) -> Rankings:
    """Opportunity rows as (target, anchor) lists per source, best first."""
    by_source: dict[str, list[LinkOpportunity]] = defaultdict(list)
    for row in rows:
        by_source[row.source_url].append(row)
    return {
        s: [(r.target_url, r.anchor_text) for r in sorted(group, key=lambda r: r.rank)]
        for s, group in by_source.items()
    }


class PathMap:
    """URL -> page path of one served copy (``dir/`` and ``dir/index.html`` are one page)."""

    def __init__(self, base_url: str, pages: set[str]) -> None:
        self.base_url, self.pages = base_url, pages
        self.cache: dict[str, str | None] = {}

    def __call__(self, url: str) -> str | None:
        """The page path of ``url``, None when it is outside the copy."""
        if url not in self.cache:
            self.cache[url] = ev.url_to_path(url, self.base_url, self.pages)
        return self.cache[url]

    def rankings(self, rankings: Rankings) -> Rankings:
        """Rankings re-keyed by page path (URLs outside the copy dropped)."""
        out: Rankings = defaultdict(list)
        for source, items in rankings.items():
            s = self(source)
            if s is not None:
                out[s] += [(t, a) for t, a in ((self(t), a) for t, a in items) if t is not None]
        return dict(out)


@dataclass(frozen=True)
class PathView:
    """A crawl seen through the page paths of the copy."""

    indexable: set[str]
    texts: dict[str, str]
    titles: dict[str, str]
    links: dict[str, set[str]]  # content links, source -> targets

    @property
    def linked(self) -> set[Pair]:
        """Pairs the crawl found linked in content."""
        return {(s, t) for s, ts in self.links.items() for t in ts}


def path_view(crawl: EvalCrawl, paths: PathMap) -> PathView:
    """The crawl's indexable pages, texts, titles and content links by page path."""
    to_path = {u: paths(u) for u in crawl.facts}
    texts = {p: t for u, t in crawl.texts.items() if (p := to_path.get(u))}
    titles = {p: f.title for u, f in crawl.facts.items() if (p := to_path.get(u))}
    links: dict[str, set[str]] = defaultdict(set)
    for src, targets in crawl.content.items():
        if (s := paths(src)) is not None:
            links[s] |= {t for t in map(paths, targets) if t and t != s}
    return PathView({p for p in to_path.values() if p}, texts, titles, links)


def evaluate_crawl(
    crawl: EvalCrawl,
    paths: PathMap,
    removed: list[ev.RemovedLink],
    html_linked: set[Pair],
    config: ScoringConfig | None = None,
) -> tuple[dict[str, Metrics], list[PairReport], dict[str, float]]:
    """(metrics per method, one row per ground-truth pair, counts) for one crawl."""
    view = path_view(crawl, paths)
    pipeline_linked = view.linked
    still_linked = html_linked | pipeline_linked
    truth = ev.ground_truth(removed, still_linked, view.indexable)
    config = config or EVAL_SCORING
    rows = score_site(crawl.candidates, crawl.facts, {}, config, crawl.placer).opportunities
    fixed = replace(config, learn_weights=False)
    defaults = score_site(crawl.candidates, crawl.facts, {}, fixed, crawl.placer).opportunities
    rankings = {
        "linkpipe": paths.rankings(rankings_of(rows)),
        "linkpipe-defaults": paths.rankings(rankings_of(defaults)),
        "tfidf": baselines.tfidf_baseline(view.texts, pipeline_linked),
        "title+tfidf": baselines.title_tfidf_baseline(view.texts, view.titles, pipeline_linked),
        "cocitation": baselines.cocitation_baseline(view.links, view.indexable, pipeline_linked),
    }
    metrics = {
        m: evaluate_rankings(r, truth, still_linked, with_anchors=m.startswith("linkpipe"))
        for m, r in rankings.items()
    }
    quality = anchor_quality(rows, crawl.texts)
    for method, values in metrics.items():
        values["well_formed"] = quality.share if method == "linkpipe" else None
        values["in_sentence"] = None
    shown = metrics["linkpipe"]["suggestions"]
    metrics["linkpipe"]["in_sentence_anchors"] = quality.anchors
    metrics["linkpipe"]["in_sentence"] = quality.anchors / shown if shown else None
    candidates = {
        (paths(c.source_url), paths(c.target_url))
        for c in crawl.candidates
        if not c.already_linked_content
    }
    removed_pairs = {(r.source, r.target) for r in removed}
    counts = {
        "removed_links": len(removed),
        "removed_pairs": len(removed_pairs),
        "still_linked_pairs": len(removed_pairs & still_linked),
        "truth_pairs": len(truth),
        "recall10_ceiling": round(recall_ceiling(truth, 10), 4),
        "indexable_pages": len(view.indexable),
    }
    return metrics, pair_reports(truth, rankings, candidates), counts


def anchor_quality(rows: list[LinkOpportunity], texts: dict[str, str]) -> AnchorQuality:
    """The well-formed share of linkpipe's in-sentence anchors (see
    :mod:`linkpipe.evaluation.anchor_quality`)."""
    return judge_anchors(opportunity_anchors(rows, texts))


def pair_reports(
    truth: dict[Pair, list[str]],
    rankings: dict[str, Rankings],
    candidates: set[tuple[str | None, str | None]],
) -> list[PairReport]:
    """Per ground-truth pair: its link texts, its rank by each method, linkpipe's anchor and
    whether it was a candidate at all."""
    rows = []
    for (s, t), link_texts in sorted(truth.items()):
        row: PairReport = {"source": s, "target": t, "link_texts": link_texts}
        for method, ranked in rankings.items():
            targets = [x for x, _ in ranked.get(s, [])]
            row[method] = targets.index(t) + 1 if t in targets else None
        hit = [a for x, a in rankings["linkpipe"].get(s, []) if x == t]
        row["linkpipe_anchor"] = hit[0] if hit else None
        row["in_candidates"] = (s, t) in candidates
        rows.append(row)
    return rows
