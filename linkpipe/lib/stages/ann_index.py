"""ann_index: the FAISS index over a crawl's embeddings, stored with its measured recall."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from linkpipe.lib.mapped import file_of, shared_arrays
from linkpipe.lib.stages.common import StageResult
from linkpipe.lib.stages.page_embeddings import load_crawl_vectors
from linkpipe.lib.storage import fetch_dicts, open_db, write_partition
from linkpipe.lib.vectors.ann import (
    AnnIndex,
    build_index,
    is_exact,
    list_centroids,
    open_mapped,
    serialize,
)


def materialize_ann_index(db_path: str | Path, crawl_id: str, model: str) -> StageResult:
    """Build the FAISS index over the crawl's embeddings and store it with its recall."""
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    if not urls:
        raise ValueError(
            f"crawl {crawl_id!r} has no indexable page with text: {_why(db_path, crawl_id)}"
        )
    dim = int(matrix.shape[1])
    kept = None if is_exact(len(urls)) else kept_lists(db_path, crawl_id, model, dim)
    ann = build_index(matrix, urls, lists=kept[1] if kept else None)
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
            "lists_from": kept[0] if kept and ann.kind.startswith("ivf") else "",
        },
    )


KEEP_LISTS_SHARE = 0.1  # an IVF index keeps the previous crawl's lists while at most this
# share of the vectors are new, changed or gone since it (the lists still fit the vectors)


def kept_lists(
    db_path: str | Path, crawl_id: str, model: str, dim: int
) -> tuple[str, np.ndarray] | None:
    """(the previous crawl, the centroids of its IVF index's lists) when this crawl keeps
    them: the latest earlier crawl of the site has an IVF index of the same model and
    dimension, and at most :data:`KEEP_LISTS_SHARE` of its vectors are new, changed (another
    text embedded) or gone since; None otherwise (the lists are trained again)."""
    with open_db(db_path) as con:
        found = fetch_dicts(con, "read/select_previous_ann_index", [crawl_id, crawl_id])
        if not found:
            return None
        prev = found[0]
        moved = int(prev["changed"]) + int(prev["gone"])
        if (
            not str(prev["index_kind"]).startswith("ivf")
            or (prev["model_id"], prev["dim"]) != (model, dim)
            or moved > KEEP_LISTS_SHARE * max(1, int(prev["n_vectors"]))
        ):
            return None
    # the previous index as its shard workers mapped it (no copy of its bytes)
    centroids = list_centroids(load_ann_index(db_path, str(prev["crawl_id"])))
    return (str(prev["crawl_id"]), centroids) if centroids is not None else None


def load_ann_index(db_path: str | Path, crawl_id: str) -> AnnIndex:
    """The stored index of a crawl, its vectors memory-mapped from a file the machine's
    processes share (``lib/mapped.py``), written from the stored bytes by the first that asks
    (a 100k-page site's index is ~150 MB a shard worker otherwise)."""
    with open_db(db_path) as con:
        rows = fetch_dicts(con, "read/select_ann_index_facts", [crawl_id])
    if not rows:
        raise ValueError(f"crawl {crawl_id!r} has no ann_index: materialize it first")
    r = rows[0]

    def stored_bytes() -> dict[str, np.ndarray]:
        with open_db(db_path) as con:
            blob = fetch_dicts(con, "read/select_ann_index_blob", [crawl_id])[0]["index_blob"]
        return {"index": np.frombuffer(blob, dtype=np.uint8)}

    key = ("ann index", f"{r['index_kind']}|{r['blob_hash']}|{len(r['urls'])}")
    found = shared_arrays(db_path, crawl_id, key, stored_bytes, raw=frozenset({"index"}))
    path = file_of(found["index"])
    facts = (r["index_kind"], r["recall_at_k"], r["recall_k"], r["build_seconds"])
    return open_mapped(path, r["urls"], *facts)


def _why(db_path: str | Path, crawl_id: str) -> str:
    """The crawl's pages by indexability reason, for the error of a crawl with none to use."""
    with open_db(db_path) as con:
        reasons = fetch_dicts(con, "read/select_exclusion_reasons", [crawl_id])
    if not reasons:
        return "no HTML page was crawled"
    counts = ", ".join(f"{r['reason']} {r['pages']}" for r in reasons)
    return f"{sum(r['pages'] for r in reasons)} pages crawled ({counts}); see v_excluded_pages"
