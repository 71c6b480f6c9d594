"""page_embeddings for one shard: summaries embedded once per (text hash, model)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pyarrow as pa

from linkpipe.lib import progress
from linkpipe.lib.sharding import text_hash
from linkpipe.lib.stages.common import StageResult
from linkpipe.lib.storage import (
    execute,
    fetch_dicts,
    load_sql,
    open_db,
    transaction,
    write_partition,
)
from linkpipe.lib.vectors.embedding import Embedder, make_embedder


@functools.lru_cache(maxsize=2)
def cached_embedder(model: str) -> Embedder:
    """One loaded model per process and name (loading takes seconds)."""
    return make_embedder(model)


def embed_cached(
    db_path: str | Path, embedder: Embedder, texts: list[str], stage: str = "embeddings"
) -> tuple[np.ndarray, set[str]]:
    """Vectors for ``texts``, reusing ``embedding_cache`` by (text hash, model id); returns
    (matrix aligned with texts, hashes of the texts newly embedded). The database is held only
    for the lookup and the insert, never while the model runs."""
    hashes = [text_hash(t) for t in texts]
    cached: dict[str, np.ndarray] = {}
    if texts:
        with open_db(db_path) as con:
            for h, vec in con.execute(
                load_sql("read/select_cached_embeddings"), [embedder.model_id, sorted(set(hashes))]
            ).fetchall():
                cached[h] = np.asarray(vec, dtype=np.float32)
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}
    if missing:
        vectors = embedder.embed(
            list(missing.values()), progress=lambda d, t: progress.report(stage, d, t)
        )
        new = dict(zip(missing.keys(), vectors, strict=True))
        with open_db(db_path) as con:
            con.register(
                "_linkpipe_new_vectors",
                pa.table(
                    {
                        "text_hash": list(new),
                        "model_id": [embedder.model_id] * len(new),
                        "embedding": [v.tolist() for v in new.values()],
                    }
                ),
            )
            try:
                with transaction(con):
                    execute(con, "write/insert_embedding_cache")
            finally:
                con.unregister("_linkpipe_new_vectors")
        cached.update(new)
    dim = embedder.dim
    matrix = np.stack([cached[h] for h in hashes]) if texts else np.zeros((0, dim), np.float32)
    return matrix.astype(np.float32), set(missing)


def materialize_page_embeddings(
    db_path: str | Path, crawl_id: str, shard: int, model: str
) -> StageResult:
    """Embed the shard's summaries; texts already embedded with this model are reused."""
    with open_db(db_path) as con:
        rows = fetch_dicts(con, "read/select_summaries_for_embedding", [crawl_id, shard])
    if not rows:
        with open_db(db_path) as con:
            written = write_partition(con, crawl_id, {"page_embeddings": []}, shard=shard)
        return StageResult(written, [], {"model_id": model, "embedded": 0, "cache_hits": 0})
    embedder = cached_embedder(model)
    matrix, fresh = embed_cached(
        db_path, embedder, [r["summary"] for r in rows], f"embeddings shard {shard}"
    )
    out = [
        {
            "url": r["url"],
            "text_hash": r["summary_hash"],
            "model_id": embedder.model_id,
            "cache_hit": r["summary_hash"] not in fresh,
            "embedding": vec.tolist(),
        }
        for r, vec in zip(rows, matrix, strict=True)
    ]
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, {"page_embeddings": out}, shard=shard)
    return StageResult(
        written,
        [{"url": r["url"], "cache_hit": r["cache_hit"]} for r in out[:5]],
        {
            "model_id": embedder.model_id,
            "embedded": len(fresh),
            "cache_hits": len(out) - len(fresh),
        },
    )


def load_crawl_vectors(db_path: str | Path, crawl_id: str) -> tuple[list[str], np.ndarray]:
    """(urls, matrix) of every page embedding of the crawl, sorted by URL."""
    with open_db(db_path) as con:
        rows = con.execute(load_sql("read/select_crawl_embeddings"), [crawl_id]).fetchall()
    urls = [r[0] for r in rows]
    matrix = np.asarray([r[1] for r in rows], dtype=np.float32) if rows else np.zeros((0, 0))
    return urls, matrix
