"""page_embeddings (per shard, cached by text hash and model) and ann_index (per crawl)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pyarrow as pa

from linkpipe.lib import progress
from linkpipe.lib.ann import AnnIndex, build_index, deserialize, serialize
from linkpipe.lib.embedding import Embedder, make_embedder
from linkpipe.lib.stages.common import StageResult, fetch_dicts
from linkpipe.lib.storage import load_sql, open_db, write_partition


@functools.lru_cache(maxsize=2)
def cached_embedder(model: str) -> Embedder:
    """One loaded model per process and name (loading takes seconds)."""
    return make_embedder(model)


def materialize_page_embeddings(
    db_path: str | Path, crawl_id: str, shard: int, model: str
) -> StageResult:
    """Embed the shard's summaries; texts already embedded with this model are reused."""
    with open_db(db_path) as con:
        rows = fetch_dicts(con, "summaries_for_embedding", [crawl_id, shard])
    hashes = sorted({r["summary_hash"] for r in rows})
    embedder = cached_embedder(model) if rows else None
    model_id = embedder.model_id if embedder else model
    cached: dict[str, np.ndarray] = {}
    if rows:
        with open_db(db_path) as con:
            for h, vec in con.execute(
                load_sql("queries/cached_embeddings"), [model_id, hashes]
            ).fetchall():
                cached[h] = np.asarray(vec, dtype=np.float32)
    missing = {r["summary_hash"]: r["summary"] for r in rows if r["summary_hash"] not in cached}
    texts = list(missing.values())
    new: dict[str, np.ndarray] = {}
    if texts and embedder is not None:
        vectors = embedder.embed(
            texts, progress=lambda d, t: progress.report(f"embeddings shard {shard}", d, t)
        )
        new = dict(zip(missing.keys(), vectors, strict=True))
    out = [
        {
            "url": r["url"],
            "text_hash": r["summary_hash"],
            "model_id": model_id,
            "cache_hit": r["summary_hash"] in cached,
            "embedding": (
                cached.get(r["summary_hash"])
                if r["summary_hash"] in cached
                else new[r["summary_hash"]]
            ).tolist(),
        }
        for r in rows
    ]
    with open_db(db_path) as con:
        if new:
            con.register(
                "_linkpipe_new_vectors",
                pa.table(
                    {
                        "text_hash": list(new.keys()),
                        "model_id": [model_id] * len(new),
                        "embedding": [v.tolist() for v in new.values()],
                    }
                ),
            )
            con.execute("BEGIN TRANSACTION")
            con.execute(load_sql("queries/insert_embedding_cache"))
            con.execute("COMMIT")
            con.unregister("_linkpipe_new_vectors")
        written = write_partition(con, crawl_id, {"page_embeddings": out}, shard=shard)
    return StageResult(
        written,
        [{"url": r["url"], "cache_hit": r["cache_hit"]} for r in out[:5]],
        {"model_id": model_id, "embedded": len(new), "cache_hits": len(out) - len(new)},
    )


def load_crawl_vectors(db_path: str | Path, crawl_id: str) -> tuple[list[str], np.ndarray]:
    """(urls, matrix) of every page embedding of the crawl, sorted by URL."""
    with open_db(db_path) as con:
        rows = con.execute(load_sql("queries/crawl_embeddings"), [crawl_id]).fetchall()
    urls = [r[0] for r in rows]
    matrix = np.asarray([r[1] for r in rows], dtype=np.float32) if rows else np.zeros((0, 0))
    return urls, matrix


def materialize_ann_index(db_path: str | Path, crawl_id: str, model: str) -> StageResult:
    """Build the FAISS index over the crawl's embeddings and store it with its recall."""
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    if not urls:
        raise ValueError(f"crawl {crawl_id!r} has no embeddings: no indexable page with text")
    ann = build_index(matrix, urls)
    row = {
        "model_id": model,
        "index_kind": ann.kind,
        "n_vectors": len(urls),
        "dim": int(matrix.shape[1]),
        "recall_at_k": ann.recall_at_k,
        "recall_k": ann.recall_k,
        "build_seconds": ann.build_seconds,
        "urls": urls,
        "index_blob": serialize(ann),
    }
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, {"ann_indexes": [row]})
    return StageResult(
        written,
        [],
        {
            "index_kind": ann.kind,
            "n_vectors": len(urls),
            "recall_at_k": ann.recall_at_k,
            "build_seconds": round(ann.build_seconds, 3),
        },
    )


def load_ann_index(db_path: str | Path, crawl_id: str) -> AnnIndex:
    """The stored index of a crawl."""
    with open_db(db_path) as con:
        rows = fetch_dicts(con, "ann_index_for_crawl", [crawl_id])
    if not rows:
        raise ValueError(f"crawl {crawl_id!r} has no ann_index: materialize it first")
    r = rows[0]
    return deserialize(
        r["index_blob"],
        r["urls"],
        r["index_kind"],
        r["recall_at_k"],
        r["recall_k"],
        r["build_seconds"],
    )
