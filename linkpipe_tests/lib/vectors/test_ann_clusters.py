"""FAISS index (exact and IVF) with measured recall; k-means clusters, bridges and gaps."""

import faiss
import numpy as np

from linkpipe.lib.vectors.ann import (
    BLAS_THRESHOLD,
    FIRST_NPROBE,
    TARGET_RECALL,
    build_index,
    deserialize,
    exact_neighbours,
    exact_order,
    list_centroids,
    list_count,
    serialize,
)
from linkpipe.lib.vectors.clusters import (
    CLUSTER_SCHEMA,
    SUMMARY_SCHEMA,
    Clustering,
    cluster_pages,
    cluster_summary,
)


def unit(rng, n, d):
    x = rng.normal(size=(n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_exact_index_finds_itself_and_round_trips():
    rng = np.random.default_rng(1)
    x = unit(rng, 200, 16)
    urls = [f"u{i}" for i in range(200)]
    ann = build_index(x, urls)
    assert ann.kind == "flat_ip" and ann.recall_at_k == 1.0
    sims, ids = ann.search(x[:3], 5)
    assert list(ids[:, 0]) == [0, 1, 2]
    again = deserialize(serialize(ann), urls, ann.kind, 1.0, 10, 0.0)
    assert (again.search(x[:3], 5)[1] == ids).all()


def test_batches_of_every_size_find_the_exact_neighbours_through_blas():
    """A batch as the candidate step searches (~250 sources of 384 dimensions) goes to BLAS,
    not to FAISS 1.15's query-by-query kernel, and finds what brute force finds, as a batch
    of one and one of 25 do."""
    assert faiss.cvar.distance_compute_blas_threshold == BLAS_THRESHOLD
    rng = np.random.default_rng(7)
    x = unit(rng, 3_000, 384)
    ann = build_index(x, [f"u{i}" for i in range(len(x))])
    truth = np.argsort(-(x[:300] @ x.T), axis=1, kind="stable")[:, :12]
    for size in (1, 25, 300):
        sims, ids = ann.search(x[:size], 12)
        assert (ids == truth[:size]).all()
        expected = np.take_along_axis(x[:size] @ x.T, truth[:size], axis=1)
        assert np.allclose(sims, expected, atol=1e-5)
        assert ids[:, 0].tolist() == list(range(size))  # each page is its own best match
    # a query's similarities do not depend on the batch it is in, to the bit: the source gate
    # compares them with those stored by the previous crawl, whose batches may differ
    whole = ann.search(x[:300], 12)[0]
    parts = [ann.search(x[a:b], 12)[0] for a, b in ((0, 1), (1, 137), (137, 300))]
    assert (np.concatenate(parts).view(np.uint32) == whole.view(np.uint32)).all()


def test_exact_order_computes_each_similarity_alone_and_breaks_ties_by_row():
    stored = np.array([[1.0, 0.0], [0.6, 0.8], [0.6, 0.8], [0.0, 1.0]], dtype=np.float32)
    queries = np.array([[0.6, 0.8], [1.0, 0.0]], dtype=np.float32)
    # the index's order and similarities are not trusted: rows 2 and 1 tie, -1 is no hit
    ids = np.array([[2, 1, 3, 0], [3, 0, -1, 1]], dtype=np.int64)
    sims, order = exact_order(queries, stored, ids)
    assert order.tolist() == [[1, 2, 3, 0], [0, 1, 3, -1]]
    expected = [[1.0, 1.0, 0.8, 0.6], [1.0, 0.6, 0.0, -np.inf]]
    assert np.allclose(sims, np.array(expected, dtype=np.float32))
    assert sims.dtype == np.float32
    # the float32 similarity is the float64 dot product rounded once: no batch can move it
    rng = np.random.default_rng(3)
    x = unit(rng, 50, 384)
    one = exact_order(x[:1], x, np.arange(50)[None, :])[0]
    exact = np.sort((x[:1].astype(np.float64) @ x.T.astype(np.float64)).astype(np.float32))
    assert (one[0] == exact[0, ::-1]).all()


def test_ivf_index_measures_recall():
    rng = np.random.default_rng(2)
    x = unit(rng, 3000, 16)
    ann = build_index(x, [str(i) for i in range(3000)], exact_threshold=1000, nprobe=16)
    assert ann.kind.startswith("ivf_flat(")
    assert 0.5 < ann.recall_at_k <= 1.0
    restored = deserialize(serialize(ann), ann.urls, ann.kind, ann.recall_at_k, 10, 0.0)
    assert (restored.search(x[:5], 3)[1] == ann.search(x[:5], 3)[1]).all()


def _recall(ann, x, nprobe):
    rows, truth = exact_neighbours(x, 10, 1000, 0)
    ann.index.nprobe = nprobe
    got = ann.search(x[rows], 10)[1]
    return sum(len(set(t) & set(g)) for t, g in zip(truth, got, strict=True)) / truth.size


def test_ivf_probes_the_fewest_lists_that_reach_the_target_recall():
    """Uniform vectors in 16 dimensions have no clusters: 4 lists of 219 find few true
    neighbours, so the probes double until the sample's recall reaches the target, and half
    as many would not have; vectors in 300 tight clusters keep the first 4."""
    rng = np.random.default_rng(3)
    x = unit(rng, 3000, 16)
    ann = build_index(x, [str(i) for i in range(3000)], exact_threshold=1000)
    probes = int(ann.kind.split("nprobe=")[1].rstrip(")"))
    assert ann.kind.startswith("ivf_flat(nlist=219,") and probes > FIRST_NPROBE
    assert ann.recall_at_k >= TARGET_RECALL and _recall(ann, x, probes) == ann.recall_at_k
    assert _recall(ann, x, probes // 2) < TARGET_RECALL
    centres = unit(rng, 300, 16)
    clustered = centres[rng.integers(0, 300, 3000)] + 0.05 * unit(rng, 3000, 16)
    clustered /= np.linalg.norm(clustered, axis=1, keepdims=True)
    easy = build_index(clustered, [str(i) for i in range(3000)], exact_threshold=1000)
    assert easy.kind.endswith(f"nprobe={FIRST_NPROBE})") and easy.recall_at_k >= TARGET_RECALL


def test_clusters_bridges_and_gaps():
    a, b = np.array([1, 0, 0], np.float32), np.array([0, 1, 0], np.float32)
    mid = (a + b) / np.linalg.norm(a + b)
    vecs = np.stack([a, a * 0.99 + 0.01 * b, a, b, b, b * 0.98 + 0.02 * a, mid])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    urls = ["a1", "a2", "a3", "b1", "b2", "b3", "mid"]
    titles = {u: ("alpha topic" if u.startswith("a") else "beta topic") for u in urls}
    links = {("a1", "a2"), ("a2", "a3"), ("a3", "a1"), ("a1", "a3"), ("a2", "a1"), ("a3", "a2")}
    clusters, summary = cluster_pages(urls, vecs, titles, links, k=2, bridge_margin=0.15)
    assert clusters.schema == CLUSTER_SCHEMA and summary.schema == SUMMARY_SCHEMA
    assert clusters["url"].to_list() == urls
    by = {r["url"]: r for r in clusters.to_dicts()}
    assert by["a1"]["cluster_id"] == by["a2"]["cluster_id"] == by["a3"]["cluster_id"]
    assert by["b1"]["cluster_id"] == by["b2"]["cluster_id"] != by["a1"]["cluster_id"]
    assert by["mid"]["is_bridge"] and not by["a1"]["is_bridge"]
    assert by["mid"]["second_cluster_id"] in {by["a1"]["cluster_id"], by["b1"]["cluster_id"]}
    assert by["mid"]["second_cluster_id"] != by["mid"]["cluster_id"]
    assert by["a1"]["second_cluster_id"] is None
    assert by["a1"]["cluster_label"] == "alpha topic"  # never "topic", in every cluster
    summary_of = {s["cluster_id"]: s for s in summary.to_dicts()}
    a, b = summary_of[by["a1"]["cluster_id"]], summary_of[by["b1"]["cluster_id"]]
    assert a["internal_content_links"] == 6 and a["link_density"] == 1.0  # fully linked inside
    assert a["is_gap"] is False
    assert b["internal_content_links"] == 0 and b["is_gap"] is True  # no links inside
    assert a["size"] + b["size"] == 7


def test_cluster_summary_counts_the_links_inside_each_cluster():
    """Counted in one pass over the links: the counts a pass per cluster gives, links to
    pages of other clusters or of none (not indexable) and self-links as that pass counts."""
    rng = np.random.default_rng(5)
    urls = [f"p{i}" for i in range(60)]
    members: dict[int, list[str]] = {}
    for url in urls:
        members.setdefault(int(rng.integers(0, 4)), []).append(url)
    pages = [*urls, "outside1", "outside2"]
    links = {(str(rng.choice(pages)), str(rng.choice(pages))) for _ in range(900)}
    links |= {("p1", "p1"), ("outside1", "p2")}
    clustering = Clustering(np.zeros((0, 0)), np.zeros((0, 0)), members, dict.fromkeys(members, ""))
    summary = {r["cluster_id"]: r for r in cluster_summary(clustering, links, 0.05).to_dicts()}
    for c, us in members.items():
        inside = set(us)
        expected = sum(1 for s, t in links if s in inside and t in inside)
        assert summary[c]["internal_content_links"] == expected > 0
        assert summary[c]["link_density"] == round(expected / (len(us) * (len(us) - 1)), 6)
    assert sorted(summary) == sorted(members)


def test_no_pages_give_empty_typed_frames():
    clusters, summary = cluster_pages([], np.zeros((0, 0), np.float32), {}, set())
    assert clusters.height == summary.height == 0
    assert clusters.schema == CLUSTER_SCHEMA and summary.schema == SUMMARY_SCHEMA


def test_ivf_on_kept_lists_and_when_they_no_longer_fit():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(3000, 16)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    urls = [str(i) for i in range(3000)]
    first = build_index(x, urls, exact_threshold=1000)
    lists = list_centroids(first)
    assert lists is not None and lists.shape == (list_count(3000), 16)
    kept = build_index(x, urls, exact_threshold=1000, lists=lists)
    assert np.array_equal(list_centroids(kept), lists) and kept.recall_at_k >= 0.95
    _, a = first.search(x[:50], 10)
    _, b = kept.search(x[:50], 10)
    assert np.array_equal(a, b)  # the same lists, the same vectors: the same hits
    # a site four times the size asks for twice the lists: trained again
    big = np.concatenate([x, x, x, x]) + rng.normal(scale=1e-3, size=(12000, 16)).astype(np.float32)
    grown = build_index(big, [str(i) for i in range(12000)], exact_threshold=1000, lists=lists)
    assert len(list_centroids(grown)) == list_count(12000) != len(lists)
    assert list_centroids(build_index(x[:500], urls[:500], exact_threshold=1000)) is None
