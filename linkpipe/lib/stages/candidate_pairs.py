"""candidate_pairs for one shard: semantic, lexical and mention neighbours with anchors."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from linkpipe.lib import progress
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.candidates import SiteContext, SitePage, build_candidates
from linkpipe.lib.links.semantic_anchors import encode_sources
from linkpipe.lib.stages.ann_index import load_ann_index
from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.stages.link_graph import load_existing_links
from linkpipe.lib.stages.page_embeddings import cached_embedder, embed_cached, load_crawl_vectors
from linkpipe.lib.storage import fetch_dicts, open_db, write_partition

MAX_TEXT_CHARS = 20_000  # of each page's main text used for TF-IDF and mention counts


SEMANTIC_ANCHOR_MAX_PAGES = 20_000  # above this, lexical anchors (sentence embedding cost)


def load_site_context(db_path: str | Path, crawl_id: str) -> SiteContext:
    """Pages, vectors and existing links of the crawl, aligned by URL."""
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    row_of = {u: i for i, u in enumerate(urls)}
    with open_db(db_path) as con:
        summaries = fetch_dicts(con, "read/select_site_pages_for_candidates", [crawl_id])
        content, nav, known = load_existing_links(con, crawl_id)
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
        for r in fetch_dicts(con, "read/select_shard_source_texts", [crawl_id, shard])
    }
    sentences: dict[str, list] = defaultdict(list)
    for r in fetch_dicts(con, "read/select_shard_sentences", [crawl_id, shard]):
        sentences[r["url"]].append(
            (r["paragraph_idx"], r["start_offset"], r["end_offset"], r["block_kind"])
        )
    spans: dict[str, list] = defaultdict(list)
    for r in fetch_dicts(con, "read/select_shard_text_links", [crawl_id, shard]):
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
