"""Embedding hits kept between crawls: a source no changed vector reaches finds, searched again,
exactly the hits it kept; the others are searched."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from linkpipe.lib.links import kept_hits as kept_hits_module
from linkpipe.lib.links.kept_hits import ChangedVectors, StoredHitUrls, kept_hits, search_salt
from linkpipe.lib.vectors.ann import build_index, list_centroids

DEPTH = 12  # hits a search asks for
READ = 8  # hits the gate reads of most sources (the k-th unlinked one, say)


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def _site(seed: int, n: int = 400, dim: int = 16) -> np.ndarray:
    """Vectors in a few clusters, so that neighbourhoods are local."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(8, dim))
    return _unit(centres[rng.integers(0, 8, n)] + 0.35 * rng.normal(size=(n, dim)))


def _stored(urls: list[str], sims: np.ndarray, ids: np.ndarray, read: list[int]) -> pl.DataFrame:
    """What the gate stores of each source: the first ``read[i]`` hits, and the count."""
    return pl.DataFrame(
        {
            "source_url": urls,
            "gate_hits": [[urls[j] for j in ids[i, : read[i]]] for i in range(len(urls))],
            "gate_sims": [sims[i, : read[i]].tobytes() for i in range(len(urls))],
            "hits_searched": [ids.shape[1]] * len(urls),
        },
        schema_overrides={"gate_sims": pl.Binary},
    )


@pytest.mark.parametrize("kind", ["exact", "ivf"])
def test_a_source_no_change_reaches_finds_the_hits_it_kept(kind, monkeypatch):
    before = _site(0)
    urls = [f"/p{i}" for i in range(len(before))]
    ivf = {"exact_threshold": 100, "nprobe": 2} if kind == "ivf" else {}
    index = build_index(before, urls, **ivf)
    assert index.kind.startswith("ivf") == (kind == "ivf")
    sims, ids = index.search(before, DEPTH)
    read = [DEPTH if i % 10 == 0 else READ for i in range(len(urls))]  # some read every hit
    after = before.copy()
    moved = [3, 50, 51, 200]  # edited pages: new vectors elsewhere on the site
    after[moved] = _unit(np.random.default_rng(1).normal(size=(len(moved), before.shape[1])))
    changed = ChangedVectors(before[moved], after[moved])
    row_of = {u: i for i, u in enumerate(urls)}
    untouched = [u for i, u in enumerate(urls) if i not in moved]
    stored = _stored(urls, sims, ids, read).filter(pl.col("source_url").is_in(untouched))
    lists = list_centroids(index) if kind == "ivf" else None
    fresh = build_index(after, urls, lists=lists, **ivf)  # an IVF index keeps its lists
    salt = search_salt(index, "m", "tfidf")
    assert search_salt(fresh, "m", "tfidf") == salt != search_salt(index, "other", "tfidf")
    assert salt != search_salt(index, "m", "refitted")
    kept = kept_hits(stored, fresh, after, row_of, changed, lambda _: DEPTH)

    monkeypatch.setattr(kept_hits_module, "PRODUCT_CELLS", 16)  # a few sources at a time
    again = kept_hits(stored, fresh, after, row_of, changed, lambda _: DEPTH)
    assert again.keys() == kept.keys()

    now_sims, now_ids = fresh.search(after, DEPTH)
    assert 0.5 * len(untouched) < len(kept) < len(untouched)  # most kept, not all
    for url, (hit_sims, hit_ids) in kept.items():
        i, n = row_of[url], read[row_of[url]]
        assert hit_ids[:n].tolist() == now_ids[i, :n].tolist()  # the hits read, in order
        assert hit_sims[:n].tobytes() == now_sims[i, :n].tobytes()  # to the bit
        if n < DEPTH:  # hits beyond those read stand as one empty hit
            assert hit_ids[n:].tolist() == [-1] and hit_sims[n] == -np.inf
        else:
            assert len(hit_ids) == DEPTH
    # every source whose hits read did change is searched again
    moved_hits = [
        u for u in untouched if now_ids[row_of[u], : read[row_of[u]]].tolist()
        != ids[row_of[u], : read[row_of[u]]].tolist()
    ]  # fmt: skip
    assert moved_hits and not set(moved_hits) & set(kept)
    reached = [u for u in untouched if u not in kept]
    # a reached source has a changed vector, old or new, at or above its last hit read
    for url in reached:
        j = row_of[url]
        best = max(
            float((after[j] @ before[moved].T).max()), float((after[j] @ after[moved].T).max())
        )
        assert best >= sims[j, read[j] - 1] - 1e-5


@pytest.mark.parametrize("case", ["gone", "fewer than asked"])
def test_hits_that_cannot_be_vouched_for_are_searched(case):
    vectors = _site(2, n=60)
    urls = [f"/p{i}" for i in range(len(vectors))]
    index = build_index(vectors, urls)
    sims, ids = index.search(vectors, DEPTH)
    stored = _stored(urls, sims, ids, [DEPTH] * len(urls))
    row_of = {u: i for i, u in enumerate(urls)}
    nothing = ChangedVectors(vectors[:0], vectors[:0])
    everything = kept_hits(stored, index, vectors, row_of, nothing, lambda _: DEPTH)
    assert len(everything) == len(urls)  # no change: every source keeps its hits
    if case == "gone":  # a hit no longer in the index: the source searches
        smaller = build_index(vectors[1:], urls[1:])
        kept = kept_hits(stored, smaller, vectors, row_of, nothing, lambda _: DEPTH)
        holding = {u for u, hit_ids in zip(urls, ids.tolist(), strict=True) if 0 in hit_ids}
        assert holding and not holding & set(kept)
    else:  # every hit read and fewer than the search asks for: any new page may join
        kept = kept_hits(stored, index, vectors, row_of, nothing, lambda _: DEPTH + 1)
        assert kept == {}


def test_stored_hit_urls_are_read_from_the_stored_frame_when_asked() -> None:
    frame = pl.DataFrame({"source_url": ["/a", "/b"], "gate_hits": [["/x", "/y"], ["/z", ""]]})
    urls = StoredHitUrls(frame)
    assert urls.get("/b") == ["/z", ""] and urls["/a"] == ["/x", "/y"]
    assert urls.get("/c") is None and sorted(urls) == ["/a", "/b"] and len(urls) == 2
