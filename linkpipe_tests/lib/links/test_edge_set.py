"""Edges as sorted integer codes (EdgeSet): lookups, duplicates, nulls, unknown URLs."""

from __future__ import annotations

import polars as pl

from linkpipe.lib.links.edge_set import EdgeSet


def test_lookups_find_exactly_the_edges_given() -> None:
    pairs = [("/a", "/home"), ("/b", "/home"), ("/b", "/about"), ("/b", "/home"), ("/home", "/a")]
    edges = EdgeSet.of_pairs(pairs)
    assert len(edges) == 4  # the repeated edge once
    assert edges.pairs() == set(pairs)
    assert ("/b", "/about") in edges and ("/home", "/a") in edges
    assert ("/a", "/about") not in edges  # both ends known, not an edge
    assert ("/home", "/b") not in edges  # the reverse of an edge
    assert ("/a", "/nowhere") not in edges and ("/x", "/home") not in edges
    assert "/a" not in edges and ("/a",) not in edges


def test_a_frame_without_rows_or_with_nulls() -> None:
    empty = EdgeSet.of_frame(
        pl.DataFrame({"s": [], "t": []}, schema={"s": pl.String, "t": pl.String}), "s", "t"
    )
    assert len(empty) == 0 and ("/a", "/b") not in empty and EdgeSet().pairs() == set()
    frame = pl.DataFrame({"s": ["/a", "/a", None], "t": ["/b", None, "/b"]})
    assert EdgeSet.of_frame(frame, "s", "t").pairs() == {("/a", "/b")}


def test_every_pair_of_a_larger_graph_is_answered_as_a_set_would() -> None:
    urls = [f"/p{i}" for i in range(60)]
    pairs = {(urls[i], urls[(i * 7 + j) % 60]) for i in range(60) for j in range(5)}
    edges = EdgeSet.of_pairs(sorted(pairs))
    assert all(((s, t) in edges) == ((s, t) in pairs) for s in urls for t in urls)
