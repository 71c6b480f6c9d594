"""Link-graph metrics against values computed by hand."""

import numpy as np
import pytest

from linkpipe.lib.links.graph import (
    EDGE_SCHEMA,
    METRICS_SCHEMA,
    build_link_graph,
    links_frame,
    pagerank,
    pages_frame,
    resolve_map,
)

H = "http://g.test"


def pg(path, **kw):
    return {"url": H + path, "status": 200, "final_url": H + path, "canonical": "", **kw}


def ln(s, t, position="content", nofollow=False, anchor="x"):
    return {
        "source_url": H + s,
        "target_url": H + t,
        "position": position,
        "nofollow": nofollow,
        "anchor_text": anchor,
        "internal": True,
    }


def graph(pages, links, start, indexable, deep_threshold=3):
    """build_link_graph of rows, each page indexable as ``indexable`` says."""
    rows = [{**p, "indexable": indexable.get(p["url"], False)} for p in pages]
    return build_link_graph(pages_frame(rows), links_frame(links), start, deep_threshold)


def test_pagerank_two_node_cycle_and_star():
    assert pagerank(2, np.array([0, 1]), np.array([1, 0])) == pytest.approx([0.5, 0.5])
    # star: 1 and 2 link to 0; 0 is dangling. By hand with d=0.85, n=3:
    # r0 = 0.05 + 0.85*(r1 + r2 + r0/3), r1 = r2 = 0.05 + 0.85*r0/3
    r = pagerank(3, np.array([1, 2]), np.array([0, 0]))
    r0 = r[0]
    r1 = 0.05 + 0.85 * r0 / 3
    assert r[1] == pytest.approx(r1) and r[2] == pytest.approx(r1)
    assert r.sum() == pytest.approx(1.0)


def test_redirects_and_canonicals_resolve_to_their_targets():
    pages = [
        pg("/old/", status=301, final_url=H + "/new/"),
        pg("/new/"),
        pg("/print/", canonical=H + "/new/"),
        pg("/loop/", status=301, final_url=H + "/loop/"),
    ]
    assert resolve_map(pages) == {H + "/old/": H + "/new/", H + "/print/": H + "/new/"}


def test_counts_depth_orphans_and_nofollow():
    pages = [
        pg("/"),
        pg("/a/"),
        pg("/b/"),
        pg("/c/"),
        pg("/d/"),
        pg("/orphan/", in_sitemap=True),
        pg("/old-b/", status=301, final_url=H + "/b/"),
    ]
    links = [
        ln("/", "/a/", "navigation"),
        ln("/", "/old-b/"),
        ln("/a/", "/b/"),
        ln("/a/", "/b/"),
        ln("/b/", "/c/"),
        ln("/c/", "/d/", nofollow=True),
        ln("/a/", "/", "header"),
    ]
    indexable = {H + p: True for p in ("/", "/a/", "/b/", "/c/", "/d/", "/orphan/")}
    result = graph(pages, links, H + "/", indexable, deep_threshold=2)
    assert result.metrics.schema == METRICS_SCHEMA and result.edges.schema == EDGE_SCHEMA
    assert result.metrics["url"].to_list() == sorted(p["url"] for p in pages)
    m = {r["url"][len(H) :]: r for r in result.metrics.to_dicts()}
    assert m["/b/"]["content_inlinks"] == 3 and m["/b/"]["unique_content_inlinks"] == 2
    assert m["/a/"]["nav_inlinks"] == 1 and m["/a/"]["content_inlinks"] == 0
    assert m["/a/"]["content_outlinks"] == 2 and m["/a/"]["nav_outlinks"] == 1
    assert [m[p]["click_depth"] for p in ("/", "/a/", "/b/", "/c/")] == [0, 1, 1, 2]
    assert m["/d/"]["click_depth"] is None and m["/d/"]["is_deep"]  # only a nofollow link
    assert m["/orphan/"]["is_orphan"] and m["/orphan/"]["in_sitemap"]
    assert not m["/d/"]["is_orphan"] and not m["/"]["is_orphan"]
    assert m["/c/"]["is_deep"] is False and m["/b/"]["is_deep"] is False
    assert result.metrics["pagerank"].sum() == pytest.approx(1.0)
    assert m["/b/"]["pagerank"] > m["/orphan/"]["pagerank"]
    edges = {
        (e["source_url"][len(H) :], e["target_url"][len(H) :]): e for e in result.edges.to_dicts()
    }
    assert len(result.edges) == 7  # every link kept: none is a self link or leaves the crawl
    assert edges["/", "/old-b/"] == {
        "source_url": H + "/",
        "target_url": H + "/old-b/",
        "resolved_url": H + "/b/",
        "anchor_text": "x",
        "position": "content",
        "nofollow": False,
    }
    assert edges["/c/", "/d/"]["nofollow"] and edges["/a/", "/"]["position"] == "header"


def test_self_links_and_links_out_of_the_crawl_are_dropped():
    pages = [pg("/"), pg("/a/"), pg("/old/", status=301, final_url=H + "/a/")]
    links = [ln("/", "/a/"), ln("/a/", "/old/"), ln("/a/", "/a/"), ln("/a/", "/nowhere/")]
    result = graph(pages, links, H + "/", {H + "/": True, H + "/a/": True})
    assert [(e["source_url"], e["target_url"]) for e in result.edges.to_dicts()] == [
        (H + "/", H + "/a/")
    ]
    m = {r["url"]: r for r in result.metrics.to_dicts()}
    assert m[H + "/old/"]["is_orphan"] and not m[H + "/old/"]["indexable"]
    assert m[H + "/a/"]["content_outlinks"] == 0 and m[H + "/a/"]["content_inlinks"] == 1
    # only /a/ has an inlink: it has the top PageRank (score 100), the two others the lowest
    scores = [m[H + p]["link_score"] for p in ("/", "/a/", "/old/")]
    assert scores == pytest.approx([0.0, 100.0, 0.0])
