"""The crawl's existing links as the candidate and model stages read them (load_existing_links)."""

from __future__ import annotations

from linkpipe.lib.stages.link_graph import load_existing_links
from linkpipe.lib.storage import open_db, write_partition

EDGES = [  # source, resolved target, anchor text, position
    ("/a", "/guide", "Pruning  guide", "content"),
    ("/b", "/guide", "pruning guide", "content"),
    ("/c", "/guide", "Pruning guide", "content"),
    ("/c", "/guide", "\tPruning\nguide ", "content"),
    ("/a", "/guide", "click here", "content"),  # generic: not a known anchor
    ("/a", "/guide", None, "content"),
    ("/a", "/tools", "x" * 81, "content"),  # too long to be a name
    ("/a", "/tools", "Garden tools", "content"),
    ("/a", "/home", "Home", "navigation"),
    ("/b", "/home", "Home", "footer"),
    ("/b", "/about", "About us", "aside"),
    ("/old", "/guide", "Pruning guide", "content"),
]


def test_links_are_split_by_position_and_anchors_counted_most_used_first(tmp_path):
    db = tmp_path / "links.duckdb"
    rows = [
        {"source_url": s, "target_url": t, "resolved_url": t, "anchor_text": a, "position": p}
        for s, t, a, p in EDGES
    ]
    with open_db(db) as con:
        write_partition(con, "c1", {"link_edges": rows})
        write_partition(con, "c2", {"link_edges": rows[:2]})  # another crawl is not read
        links = load_existing_links(con, "c1")
    assert dict(links.content) == {
        "/a": {"/guide", "/tools"},
        "/b": {"/guide"},
        "/c": {"/guide"},
        "/old": {"/guide"},
    }
    assert links.nav.pairs() == {("/a", "/home"), ("/b", "/home"), ("/b", "/about")}
    assert ("/b", "/about") in links.nav and ("/a", "/about") not in links.nav
    # whitespace collapsed before counting, case kept: 4 x "Pruning guide", 1 x lower case
    assert links.anchors == {
        "/guide": ["Pruning guide", "pruning guide"],
        "/tools": ["Garden tools"],
    }
    assert links.content["/nowhere"] == set()  # a source without links has none
