"""candidate_pairs (per shard), link_opportunities and topic_clusters (per crawl)."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from linkpipe.lib import progress
from linkpipe.lib.anchors import SourceText
from linkpipe.lib.candidates import SiteContext, SitePage, build_candidates
from linkpipe.lib.clusters import cluster_pages
from linkpipe.lib.lexical import is_generic_anchor
from linkpipe.lib.run_config import scoring_config
from linkpipe.lib.scoring import PageFacts, ScoringConfig, score_opportunities
from linkpipe.lib.semantic_anchors import encode_sources
from linkpipe.lib.signals import BusinessValue, load_business_values
from linkpipe.lib.stages.common import StageResult, fetch_dicts, preview, stored_config
from linkpipe.lib.stages.vectors import (
    cached_embedder,
    embed_cached,
    load_ann_index,
    load_crawl_vectors,
)
from linkpipe.lib.storage import open_db, write_partition

MAX_TEXT_CHARS = 20_000  # of each page's main text used for TF-IDF and mention counts
SEMANTIC_ANCHOR_MAX_PAGES = 20_000  # above this, lexical anchors (sentence embedding cost)


def _links(con: Any, crawl_id: str) -> tuple[dict, dict, dict]:
    content: dict[str, set[str]] = defaultdict(set)
    nav: dict[str, set[str]] = defaultdict(set)
    anchors: dict[str, Counter] = defaultdict(Counter)
    for e in fetch_dicts(con, "content_edges", [crawl_id]):
        if e["position"] == "content":
            content[e["source_url"]].add(e["resolved_url"])
            text = " ".join((e["anchor_text"] or "").split())
            if text and not is_generic_anchor(text) and len(text) <= 80:
                anchors[e["resolved_url"]][text] += 1
        else:
            nav[e["source_url"]].add(e["resolved_url"])
    known = {t: [a for a, _ in c.most_common()] for t, c in anchors.items()}
    return content, nav, known


def load_site_context(db_path: str | Path, crawl_id: str) -> SiteContext:
    """Pages, vectors and existing links of the crawl, aligned by URL."""
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    row_of = {u: i for i, u in enumerate(urls)}
    with open_db(db_path) as con:
        summaries = fetch_dicts(con, "site_pages_for_candidates", [crawl_id])
        content, nav, known = _links(con, crawl_id)
    pages = [
        SitePage(
            s["url"],
            s["title"] or "",
            s["h1"] or "",
            s["slug_words"] or "",
            (s["main_text"] or "")[:MAX_TEXT_CHARS],
        )
        for s in summaries
        if s["url"] in row_of
    ]
    vectors = matrix[[row_of[p.url] for p in pages]] if pages else np.zeros((0, 1), np.float32)
    return SiteContext(pages, vectors, content, nav, known)


def _source_texts(con: Any, crawl_id: str, shard: int) -> dict[str, SourceText]:
    texts = {
        r["url"]: r["main_text"] or ""
        for r in fetch_dicts(con, "shard_source_texts", [crawl_id, shard])
    }
    sentences: dict[str, list] = defaultdict(list)
    for r in fetch_dicts(con, "shard_sentences", [crawl_id, shard]):
        sentences[r["url"]].append(
            (r["paragraph_idx"], r["start_offset"], r["end_offset"], r["block_kind"])
        )
    spans: dict[str, list] = defaultdict(list)
    for r in fetch_dicts(con, "shard_text_links", [crawl_id, shard]):
        spans[r["url"]].append((r["start_offset"], r["end_offset"]))
    return {u: SourceText(t, sentences[u], spans[u]) for u, t in texts.items()}


def materialize_candidate_pairs(
    db_path: str | Path,
    crawl_id: str,
    shard: int,
    model: str,
    k: int = 20,
    semantic_anchor_max_pages: int = SEMANTIC_ANCHOR_MAX_PAGES,
) -> StageResult:
    """Semantic and lexical candidates for the shard's source pages, with anchors.

    Anchors are placed semantically (sentence and word vectors, cached) on sites of up to
    ``semantic_anchor_max_pages`` indexable pages, lexically above that.
    """
    site = load_site_context(db_path, crawl_id)
    ann = load_ann_index(db_path, crawl_id)
    with open_db(db_path) as con:
        texts = _source_texts(con, crawl_id, shard)
    sources = sorted(texts)
    semantic = len(site.pages) <= semantic_anchor_max_pages
    embedder = cached_embedder(model) if semantic and sources else None

    def encode(items: Any) -> Any:
        return embed_cached(db_path, embedder, list(items), f"anchors shard {shard}")[0]

    rows: list[dict[str, Any]] = []
    for i in range(0, len(sources), 64):
        batch = sources[i : i + 64]
        vectors = encode_sources({u: texts[u] for u in batch}, encode) if embedder else None
        rows += build_candidates(site, batch, texts, ann, k=k, sentence_vectors=vectors)
        progress.report(f"candidates shard {shard}", min(i + 64, len(sources)), len(sources))
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, {"candidate_pairs": rows}, shard=shard)
    return StageResult(
        written,
        preview(
            sorted(rows, key=lambda r: -r["semantic_sim"]),
            ["source_url", "target_url", "semantic_sim", "anchor_text"],
        ),
        {"anchor_mode": "semantic" if semantic else "lexical"},
    )


def load_page_facts(con: Any, crawl_id: str) -> dict[str, PageFacts]:
    """What scoring knows of each indexable page: type, link metrics and business value."""
    page_rows = fetch_dicts(con, "page_facts", [crawl_id])
    values = load_business_values(con, [r["url"] for r in page_rows])
    facts = {}
    for r in page_rows:
        value = values.get(r["url"], BusinessValue())
        facts[r["url"]] = PageFacts(
            title=r["title"] or "",
            page_type=r["page_type"] or "page",
            content_inlinks=r["content_inlinks"],
            click_depth=r["click_depth"],
            link_score=r["link_score"],
            is_orphan=r["is_orphan"],
            is_deep=r["is_deep"],
            business_value=value.value,
            value_notes=value.notes,
        )
    return facts


def materialize_link_opportunities(
    db_path: str | Path, crawl_id: str, config: ScoringConfig | None = None
) -> StageResult:
    """Filter, score, cap and explain the crawl's candidates."""
    with open_db(db_path) as con:
        candidates = fetch_dicts(con, "candidates_for_crawl", [crawl_id])
        facts = load_page_facts(con, crawl_id)
        decisions = {
            (r["source_url"], r["target_url"]): r["decision"]
            for r in fetch_dicts(con, "decisions", [])
        }
    config = config or scoring_config(stored_config(db_path, crawl_id))
    rows, cannibal = score_opportunities(candidates, facts, decisions, config)
    with open_db(db_path) as con:
        written = write_partition(
            con, crawl_id, {"link_opportunities": rows, "cannibalisation_pairs": cannibal}
        )
    best = sorted(rows, key=lambda r: -r["score"])
    return StageResult(
        written,
        preview(best, ["source_url", "target_url", "anchor_text", "score"]),
        {
            "in_sentence": sum(r["placement"] == "in_sentence" for r in rows),
            "pages_with_business_value": sum(f.business_value > 0 for f in facts.values()),
        },
    )


def materialize_topic_clusters(db_path: str | Path, crawl_id: str) -> StageResult:
    """Cluster the crawl's pages and flag bridges and loosely linked clusters."""
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    with open_db(db_path) as con:
        titles = {r["url"]: r["title"] or "" for r in fetch_dicts(con, "page_titles", [crawl_id])}
        content, _, _ = _links(con, crawl_id)
    pairs = {(s, t) for s, ts in content.items() for t in ts}
    rows, summary = cluster_pages(urls, matrix, titles, pairs)
    with open_db(db_path) as con:
        written = write_partition(
            con, crawl_id, {"topic_clusters": rows, "cluster_summary": summary}
        )
    return StageResult(written, preview(summary, ["cluster_id", "cluster_label", "size", "is_gap"]))
