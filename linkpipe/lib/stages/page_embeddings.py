"""page_embeddings for one shard: summaries embedded once per (text hash, model)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl
from numpy.typing import NDArray

from linkpipe.lib import model_cpu, progress
from linkpipe.lib.hashing import text_hash
from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.storage import (
    execute_with_frame,
    fetch_frame,
    open_db,
    transaction,
    write_partition,
)
from linkpipe.lib.vectors.embedding import Embedder, make_embedder

Matrix = NDArray[np.float32]
"""Row vectors, one per text or page, float32."""


@functools.lru_cache(maxsize=2)
def cached_embedder(model: str) -> Embedder:
    """One loaded model per process and name (loading takes seconds)."""
    return make_embedder(model)


def embed_cached(
    db_path: str | Path, embedder: Embedder, texts: Sequence[str], stage: str = "embeddings"
) -> tuple[Matrix, set[str]]:
    """Vectors of ``texts`` (one row each, in order) and the hashes of the texts embedded now.

    A text already in ``embedding_cache`` under (its hash, the embedder's model id) is not
    embedded again; new vectors are added to the cache. The database is held only for the
    lookup and the insert, never while the model runs.
    """
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32), set()
    hashes = [text_hash(t) for t in texts]
    vectors = _cached_vectors(db_path, embedder.model_id, sorted(set(hashes)))
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in vectors}
    if missing:
        with model_cpu.timed(model_cpu.EMBEDDER):
            fresh = embedder.embed(
                list(missing.values()), progress=lambda d, t: progress.report(stage, d, t)
            )
        _store_vectors(db_path, embedder.model_id, list(missing), fresh)
        vectors.update(zip(missing, fresh, strict=True))
    matrix = np.stack([vectors[h] for h in hashes]).astype(np.float32)
    return matrix, set(missing)


def _cached_vectors(
    db_path: str | Path, model_id: str, hashes: list[str]
) -> dict[str, NDArray[np.float32]]:
    """The cached vector of each of ``hashes`` that has one for ``model_id``."""
    with open_db(db_path) as con:
        cached = fetch_frame(con, "read/select_cached_embeddings", [model_id, hashes])
    matrix = embedding_matrix(cached["embedding"])
    return dict(zip(cached["text_hash"].to_list(), matrix, strict=True))


def _store_vectors(db_path: str | Path, model_id: str, hashes: list[str], vectors: Matrix) -> None:
    """Add vectors to ``embedding_cache`` in one transaction (existing keys are kept)."""
    new_vectors = pl.DataFrame(
        {"text_hash": hashes, "model_id": model_id, "embedding": embedding_column(vectors)}
    )
    with open_db(db_path) as con, transaction(con):
        execute_with_frame(
            con, "write/insert_embedding_cache", "_linkpipe_new_vectors", new_vectors
        )


def embedding_column(vectors: Matrix) -> pl.Series:
    """A matrix as the values of a ``FLOAT[]`` column (one list per row)."""
    return pl.Series("embedding", np.asarray(vectors, dtype=np.float32)).cast(pl.List(pl.Float32))


def embedding_matrix(embeddings: pl.Series) -> Matrix:
    """A ``FLOAT[]`` column as an (n, dim) float32 matrix, converted column-wise."""
    if embeddings.len() == 0:
        return np.zeros((0, 0), dtype=np.float32)
    dims = embeddings.list.len().unique()
    if dims.len() != 1:
        raise ValueError(f"embeddings of different lengths: {sorted(dims.to_list())}")
    matrix: Matrix = embeddings.list.to_array(int(dims[0])).to_numpy().astype(np.float32)
    return matrix


def materialize_page_embeddings(
    db_path: str | Path, crawl_id: str, shard: int, model: str
) -> StageResult:
    """Embed the shard's summaries; texts already embedded with this model are reused (the
    metadata says what the model cost: :mod:`~linkpipe.lib.model_cpu`)."""
    before = model_cpu.spent()
    with open_db(db_path) as con:
        summaries = fetch_frame(con, "read/select_summaries_for_embedding", [crawl_id, shard])
    if summaries.height == 0:
        with open_db(db_path) as con:
            written = write_partition(con, crawl_id, {"page_embeddings": []}, shard=shard)
        return StageResult(written, [], {"model_id": model, "embedded": 0, "cache_hits": 0})
    embedder = cached_embedder(model)
    matrix, fresh = embed_cached(
        db_path, embedder, summaries["summary"].to_list(), f"embeddings shard {shard}"
    )
    embeddings = summaries.select(
        "url",
        pl.col("summary_hash").alias("text_hash"),
        pl.lit(embedder.model_id).alias("model_id"),
        (~pl.col("summary_hash").is_in(list(fresh))).alias("cache_hit"),
        embedding_column(matrix),
    )
    with open_db(db_path) as con:
        written = write_partition(con, crawl_id, {"page_embeddings": embeddings}, shard=shard)
    return StageResult(
        written,
        preview(embeddings, ["url", "cache_hit"]),
        {
            "model_id": embedder.model_id,
            "embedded": len(fresh),
            "cache_hits": embeddings.height - len(fresh),
        }
        | model_cpu.since(before),
    )


def load_crawl_vectors(db_path: str | Path, crawl_id: str) -> tuple[list[str], Matrix]:
    """(urls, float32 matrix with one row per URL) of every page embedding of the crawl,
    sorted by URL; a (0, 0) matrix when the crawl has none."""
    with open_db(db_path) as con:
        frame = fetch_frame(con, "read/select_crawl_embeddings", [crawl_id])
    return frame["url"].to_list(), embedding_matrix(frame["embedding"])
