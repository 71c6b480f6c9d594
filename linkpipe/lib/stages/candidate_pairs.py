"""candidate_pairs for one shard: semantic, lexical and mention neighbours with anchors.

Incremental by content, at two levels. A shard whose inputs (every page, embedding and link of
the site, the shard's sentences, settings, model and code: :func:`shard_digest`) equal an
earlier crawl's shard copies that shard's rows by SQL: a refresh of an unchanged site computes
no candidates. Otherwise every source's candidates and evidence are recomputed (cheap), but a
pair's anchor placements are taken from the previous crawl's row with the same anchor key (see
:mod:`linkpipe.lib.links.anchor_reuse`): the latest earlier crawl of the same start URL with
``candidate_pairs`` rows in the shard."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import duckdb
import numpy as np

from linkpipe.lib import progress
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import AnchorChoice, SourceText
from linkpipe.lib.links.candidates import candidate_rows, pair_keys
from linkpipe.lib.links.long_sources import is_long
from linkpipe.lib.links.retrieval import CandidateLimits, retrieve
from linkpipe.lib.links.rows import CandidatePair, anchors_of_record, records
from linkpipe.lib.links.semantic_anchors import EncodeFn, encode_sources
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.stages.ann_index import load_ann_index
from linkpipe.lib.stages.common import StageResult, inputs_digest, preview
from linkpipe.lib.stages.link_graph import load_existing_links
from linkpipe.lib.stages.page_embeddings import cached_embedder, embed_cached, load_crawl_vectors
from linkpipe.lib.stages.parse_cache import ParseCache
from linkpipe.lib.stages.site_models import load_site_models, site_pages
from linkpipe.lib.storage import (
    CopiedRows,
    PartitionRows,
    fetch_dicts,
    one_connection,
    open_db,
    stored_config,
    write_partition,
)
from linkpipe.lib.vectors.ann import AnnIndex
from linkpipe.lib.vectors.embedding import Embedder

SOURCE_BATCH = 256  # sources whose words are embedded (or read from the cache) in one call


def load_site_context(db_path: str | Path, crawl_id: str) -> SiteContext:
    """Pages, vectors and existing links of the crawl, aligned by URL, with the site models
    the ``site_models`` asset stored (never refitted here)."""
    models = load_site_models(db_path, crawl_id)
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    row_of = {u: i for i, u in enumerate(urls)}
    pages = [p for p in site_pages(db_path, crawl_id) if p.url in row_of]
    with open_db(db_path) as con:
        content, nav, known = load_existing_links(con, crawl_id)
    vectors = matrix[[row_of[p.url] for p in pages]] if pages else np.zeros((0, 1), np.float32)
    return SiteContext(pages, vectors, content, nav, known, models)


def _source_texts(
    con: duckdb.DuckDBPyConnection, crawl_id: str, shard: int
) -> dict[str, SourceText]:
    """The main text of the shard's pages with their sentences and existing-link spans."""
    texts = {
        r["url"]: r["main_text"] or ""
        for r in fetch_dicts(con, "read/select_shard_source_texts", [crawl_id, shard])
    }
    sentences: dict[str, list[tuple[int, int, int, str]]] = defaultdict(list)
    for r in fetch_dicts(con, "read/select_shard_sentences", [crawl_id, shard]):
        sentences[r["url"]].append(
            (r["paragraph_idx"], r["start_offset"], r["end_offset"], r["block_kind"])
        )
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for r in fetch_dicts(con, "read/select_shard_text_links", [crawl_id, shard]):
        spans[r["url"]].append((r["start_offset"], r["end_offset"]))
    return {u: SourceText(t, sentences[u], spans[u]) for u, t in texts.items()}


def materialize_candidate_pairs(
    db_path: str | Path, crawl_id: str, shard: int, model: str, k: int = 20, reuse: bool = True
) -> StageResult:
    """Semantic, lexical and named candidates for the shard's source pages, with anchors placed
    semantically (sentence and word vectors, cached), whatever the site's size.

    Reads the crawl's site models (``site_models`` asset), embeddings, ANN index and existing
    links, the shard's own main texts, sentences and link spans, and (``reuse``) the previous
    crawl's placements of the shard by anchor key. With ``reuse``, a shard whose inputs are
    those of an earlier crawl's shard (:func:`shard_digest`) copies that shard's rows."""
    with one_connection(db_path):  # reads and the SQL copy: one open of the file
        digest = shard_digest(db_path, crawl_id, shard, model, k)
        copied = copy_unchanged_shard(db_path, crawl_id, shard, digest) if reuse else None
        if copied is not None:
            return copied
        site = load_site_context(db_path, crawl_id)
        ann = load_ann_index(db_path, crawl_id)
        with open_db(db_path) as con:
            texts = _source_texts(con, crawl_id, shard)
            previous = _previous_placements(con, crawl_id, shard) if reuse else ({}, None)
    encode = anchor_encoder(db_path, cached_embedder(model), shard) if texts else None
    known = AnchorReuse(model, encode is not None, previous[0])
    parses = ParseCache(db_path)
    rows = shard_candidates(site, ann, texts, shard, encode, k, known, parses)
    tables: dict[str, PartitionRows] = {
        "candidate_pairs": records(rows),
        "candidate_inputs": [{"digest": digest}],
    }
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, tables, shard=shard)
    closest = sorted(rows, key=lambda r: -r.semantic_sim)[:5]
    meta = {"anchor_mode": "semantic", "sources": len(texts), "pairs": len(rows)}
    meta |= {"anchors_reused": known.reused, "reused_from": previous[1] or "", "copied_from": ""}
    meta |= {"parses_loaded": parses.loaded, "parses_stored": parses.stored}
    return StageResult(
        written,
        preview(records(closest), ["source_url", "target_url", "semantic_sim", "anchor_text"]),
        meta,
    )


def shard_digest(db_path: str | Path, crawl_id: str, shard: int, model: str, k: int) -> str:
    """Digest of everything the shard's candidate rows are computed from: the site's pages,
    embeddings, indexability and links and the shard's sentences and in-text links (sums of
    row hashes, ``select_candidate_inputs.sql``), the crawl's settings, the model, ``k`` and
    the code of ``linkpipe.lib`` (:func:`~linkpipe.lib.stages.common.inputs_digest`). The rows
    are a deterministic function of these."""
    config = json.dumps(stored_config(db_path, crawl_id), sort_keys=True, default=str)
    with open_db(db_path) as con:
        return inputs_digest(
            con, crawl_id, "read/select_candidate_inputs", config, model, str(k), shard=shard
        )


def copy_unchanged_shard(
    db_path: str | Path, crawl_id: str, shard: int, digest: str
) -> StageResult | None:
    """The shard's rows copied from the latest earlier crawl computed from the same inputs
    (``digest``), None when there is none."""
    with open_db(db_path) as con:
        found = fetch_dicts(con, "read/select_reusable_candidates_crawl", [crawl_id, shard, digest])
        if not found:
            return None
        previous = found[0]["crawl_id"]
        sources = [r["source_url"] for r in fetch_dicts(
            con, "read/select_shard_candidate_sources", [previous, shard]
        )]  # fmt: skip
        written = write_partition(
            con, crawl_id, {"candidate_inputs": [{"digest": digest}]}, shard=shard,
            copied={"candidate_pairs": CopiedRows(previous, sources, "source_url")},
        )  # fmt: skip
    meta = {"anchor_mode": "copied", "sources": len(sources), "pairs": written["candidate_pairs"]}
    return StageResult(written, [], meta | {"copied_from": previous, "anchors_reused": 0})


def _previous_placements(
    con: duckdb.DuckDBPyConnection, crawl_id: str, shard: int
) -> tuple[dict[str, tuple[AnchorChoice, ...]], str | None]:
    """Placements of the shard's pairs in the previous crawl by anchor key, and that crawl."""
    found = fetch_dicts(con, "read/select_previous_candidates_crawl", [crawl_id, shard])
    if not found:
        return {}, None
    previous = found[0]["crawl_id"]
    rows = fetch_dicts(con, "read/select_shard_placements", [previous, shard])
    return {r["anchor_key"]: anchors_of_record(r) for r in rows}, previous


def anchor_encoder(db_path: str | Path, embedder: Embedder, shard: int) -> EncodeFn:
    """Word vectors for semantic anchors, cached in the database by text."""

    def encode(items: Sequence[str]) -> np.ndarray:
        return embed_cached(db_path, embedder, list(items), f"anchors shard {shard}")[0]

    return encode


def shard_candidates(
    site: SiteContext,
    ann: AnnIndex,
    texts: dict[str, SourceText],
    shard: int,
    encode: EncodeFn | None,
    k: int,
    reuse: AnchorReuse | None = None,
    parses: ParseCache | None = None,
) -> list[CandidatePair]:
    """Candidates of every source of the shard, ``SOURCE_BATCH`` sources at a time; anchors are
    placed semantically with ``encode`` (the words of a batch's sources embedded in one call;
    a long source's part by part), lexically without. Sources all of whose pairs ``reuse``
    knows are not encoded at all; the sentence parses of the others are read from and added
    to ``parses``."""
    sources = sorted(texts)
    limits = CandidateLimits(k=k)
    rows: list[CandidatePair] = []
    for i in range(0, len(sources), SOURCE_BATCH):
        found = retrieve(site, sources[i : i + SOURCE_BATCH], texts, ann, limits)
        new = [
            f.source
            for f in found
            if not is_long(texts[f.source])  # encoded part by part (bounded memory)
            and (reuse is None or not reuse.covers(pair_keys(site, reuse, f, texts[f.source])))
        ]
        vectors = encode_sources({u: texts[u] for u in new}, encode) if encode and new else None
        if parses is not None:
            parses.load(texts[u] for u in new)
        rows += candidate_rows(site, found, texts, vectors, reuse, encode)
        if parses is not None:
            parses.store(texts[f.source] for f in found)
        done = min(i + SOURCE_BATCH, len(sources))
        progress.report(f"candidates shard {shard}", done, len(sources))
    return rows
