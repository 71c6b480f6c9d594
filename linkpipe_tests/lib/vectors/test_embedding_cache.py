"""Embeddings are computed once per (text hash, model) and read back as float32 matrices."""

import numpy as np
import pytest

from linkpipe.lib.hashing import text_hash
from linkpipe.lib.stages.page_embeddings import (
    embed_cached,
    load_crawl_vectors,
    materialize_page_embeddings,
)
from linkpipe.lib.storage import open_db, write_partition
from linkpipe.lib.vectors.embedding import HashingEmbedder


class CountingEmbedder(HashingEmbedder):
    """The hashing fake, remembering which texts it was asked to embed."""

    def __init__(self):
        super().__init__(16)
        self.calls = []

    def embed(self, texts, progress=None):
        self.calls.append(list(texts))
        return super().embed(texts, progress)


def test_embed_cached_embeds_each_new_text_once(tmp_path):
    db = tmp_path / "e.duckdb"
    embedder = CountingEmbedder()
    first, fresh = embed_cached(db, embedder, ["alpha beta", "gamma", "alpha beta"])
    assert embedder.calls == [["alpha beta", "gamma"]]
    assert fresh == {text_hash("alpha beta"), text_hash("gamma")}
    assert first.dtype == np.float32 and first.shape == (3, 16)
    assert np.array_equal(first[0], first[2])
    again, fresh_again = embed_cached(db, embedder, ["gamma", "delta", "alpha beta"])
    assert embedder.calls[1:] == [["delta"]] and fresh_again == {text_hash("delta")}
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0])
    assert np.array_equal(again[1], HashingEmbedder(16).embed(["delta"])[0])
    with open_db(db) as con:
        cached = con.execute("SELECT count(*), min(model_id) FROM embedding_cache").fetchone()
    assert cached == (3, "hashing-16")
    empty, none = embed_cached(db, embedder, [])
    assert empty.shape == (0, 16) and none == set() and len(embedder.calls) == 2


def test_page_embeddings_are_written_and_read_back_as_a_float32_matrix(tmp_path):
    db = tmp_path / "e.duckdb"
    texts = {"http://s.test/b": "beta page", "http://s.test/a": "alpha page"}
    rows = [{"url": u, "summary": t, "summary_hash": text_hash(t)} for u, t in texts.items()]
    with open_db(db) as con:
        write_partition(con, "c1", {"page_summaries": rows}, shard=0)
    embed_cached(db, HashingEmbedder(16), ["beta page"])  # already cached: a cache hit
    result = materialize_page_embeddings(db, "c1", 0, "hashing-16")
    assert result.rows == {"page_embeddings": 2}
    assert result.preview == [
        {"url": "http://s.test/a", "cache_hit": False},
        {"url": "http://s.test/b", "cache_hit": True},
    ]
    spent = {k: result.meta.pop(k) for k in ("embedder_cpu_s", "parser_cpu_s")}
    assert result.meta == {"model_id": "hashing-16", "embedded": 1, "cache_hits": 1}
    assert spent["parser_cpu_s"] == 0.0 and 0.0 <= spent["embedder_cpu_s"] < 1.0  # one text
    urls, matrix = load_crawl_vectors(db, "c1")
    assert urls == ["http://s.test/a", "http://s.test/b"]
    assert matrix.dtype == np.float32 and matrix.shape == (2, 16)
    expected = HashingEmbedder(16).embed(["alpha page", "beta page"])
    assert np.array_equal(matrix, expected)
    assert np.linalg.norm(matrix, axis=1) == pytest.approx([1.0, 1.0])
    none, empty = load_crawl_vectors(db, "other")
    assert none == [] and empty.shape == (0, 0) and empty.dtype == np.float32


def test_the_real_model_is_loaded_only_when_a_text_is_not_cached(tmp_path):
    from linkpipe.lib.vectors.embedding import (
        DEFAULT_MODEL,
        EmbeddingError,
        SentenceTransformerEmbedder,
    )

    db = tmp_path / "e.duckdb"
    first = SentenceTransformerEmbedder(DEFAULT_MODEL)
    assert not first.loaded and first.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    vectors, fresh = embed_cached(db, first, ["layer masks", "brush dynamics"])
    assert first.loaded and len(fresh) == 2 and vectors.shape == (2, 384)
    again = SentenceTransformerEmbedder(DEFAULT_MODEL)  # a refresh's new worker process
    cached, none = embed_cached(db, again, ["brush dynamics", "layer masks"])
    assert not again.loaded and none == set()  # every text cached: no model loaded
    assert np.array_equal(cached, vectors[::-1])
    missing = SentenceTransformerEmbedder(str(tmp_path / "no-model-here"))
    assert not missing.loaded  # naming it costs nothing; using it is a clear error
    with pytest.raises(EmbeddingError, match="cannot load embedding model"):
        embed_cached(db, missing, ["layer masks"])
