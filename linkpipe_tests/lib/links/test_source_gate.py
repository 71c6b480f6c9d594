"""The gate that copies a source before retrieval: only when nothing its rows read changed."""

import numpy as np

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.retrieval import (
    CandidateLimits,
    linked_neighbours,
    search,
    semantic_neighbours,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import SitePage
from linkpipe.lib.links.source_gate import (
    SiteChanges,
    SourceGate,
    gate_digest,
    name_keys,
    named_by_keys,
    read_depth,
    retrieve_ungated,
)
from linkpipe.lib.vectors.ann import build_index

WORDS = "raster vector layer colour balance brush mask gdal filter curve".split()


def _site(links: dict[str, set[str]]) -> SiteContext:
    """Twelve pages on random unit vectors (seeded), each naming the next page's title."""
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(12, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pages = [
        SitePage(f"/p{i}", f"{WORDS[i % 10]} guide {i}", "", "", f"See {WORDS[(i + 1) % 10]}.")
        for i in range(12)
    ]
    return SiteContext(pages, vectors, links, {}, {})


def test_read_depth_is_where_retrieval_stops_reading_hits() -> None:
    limits = CandidateLimits(k=3, min_similarity=-1.0)
    for links in ({}, {"/p0": {"/p3", "/p5", "/p8"}}):
        site = _site(links)
        ann = build_index(site.vectors, [p.url for p in site.pages])
        found = search(site, ["/p0"], ann, limits)
        sims, ids = found.sims[0], found.ids[0]
        depth = read_depth(site, "/p0", ann, sims, ids, limits)
        # the last hit retrieval reads is the k-th unlinked one: reading fewer changes its
        # result, reading more does not
        full = semantic_neighbours(site, "/p0", ann, sims, ids, limits)
        assert semantic_neighbours(site, "/p0", ann, sims[:depth], ids[:depth], limits) == full
        short = semantic_neighbours(site, "/p0", ann, sims[: depth - 1], ids[: depth - 1], limits)
        assert short != full and len(full) == 3
        hits = (sims[:depth], ids[:depth])
        assert linked_neighbours(site, "/p0", ann, hits, [], {}, limits) == linked_neighbours(
            site, "/p0", ann, (sims, ids), [], {}, limits
        )
        assert depth == 3 + 1 + sum(ann.urls[i] in links.get("/p0", ()) for i in ids[:depth])


def test_the_gate_digest_reads_hits_names_and_text() -> None:
    limits = CandidateLimits(k=3, min_similarity=-1.0)
    site = _site({})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    found = search(site, ["/p0"], ann, limits)
    src = SourceText("Use the raster guide 0 and the vector guide 1.", [(0, 0, 46, "paragraph")])
    keys = name_keys(site, src)
    assert keys == ["raster guid 0", "vector guid 1"]  # the titles it holds, as stems

    def digest(text: SourceText = src, names: list[str] = keys, page: str = "f") -> str:
        named = named_by_keys(site, "/p0", names)
        return gate_digest("salt", site, found, 0, text, page, named, ann, limits)

    assert digest() == digest()
    assert digest(names=keys[:1]) != digest()  # another name named
    assert digest(page="g") != digest()  # its stored facts
    other = SourceText("Use the raster guide 0 and the vector guide 1!", [(0, 0, 46, "paragraph")])
    assert digest(text=other) != digest()  # its text
    found.sims[0][1] += 1e-6
    assert digest() != gate_digest("salt", site, search(site, ["/p0"], ann, limits), 0, src,
                                   "f", named_by_keys(site, "/p0", keys), ann, limits)  # fmt: skip


def test_a_source_passes_only_when_nothing_it_reads_changed() -> None:
    changes = SiteChanges(touched=frozenset({"/y"}), relinked=frozenset({"/c"}))
    gate = SourceGate(
        "salt",
        changes,
        CandidateLimits(),
        digests={"/a": "d1", "/b": "d2", "/c": "d3"},
        targets={"/a": {"/x"}, "/b": {"/x", "/y"}, "/c": {"/x"}},
    )
    assert not gate.passes("/a", "another digest")
    assert not gate.passes("/b", "d2")  # one of its targets changed
    assert not gate.passes("/c", "d3")  # a link to it changed: its co-citations
    assert not gate.passes("/new", "")  # never seen
    assert gate.passes("/a", "d1")
    assert gate.quiet == ["/a"]
    closed = SourceGate("salt", changes, CandidateLimits(), digests={"/a": "d1"}, open=False)
    assert not closed.passes("/a", "d1") and closed.quiet == []


def test_a_source_stopped_for_a_touched_target_keeps_its_stored_name_keys() -> None:
    limits = CandidateLimits(k=3, min_similarity=-1.0)
    site = _site({})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    pages = {p.url: "facts" for p in site.pages}

    def text() -> SourceText:
        return SourceText(
            "Use the raster guide 0 and the vector guide 1.", [(0, 0, 46, "paragraph")]
        )

    first = SourceGate("salt", SiteChanges(frozenset(), frozenset()), limits, open=False)
    expected = retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, first, pages)
    digest, keys = first.computed["/p0"]
    assert keys == ["raster guid 0", "vector guid 1"]
    touched = SiteChanges(frozenset({"/p1"}), frozenset())
    stored = {"digests": {"/p0": digest}, "keys": {"/p0": keys}, "targets": {"/p0": {"/p1"}}}
    gate = SourceGate("salt", touched, limits, **stored)
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == expected
    assert gate.quiet == [] and gate.computed["/p0"] == (digest, keys)
    assert "tokens" not in src.__dict__  # the keys came from the store, not from its words
    # stored under another digest (another text, say): its keys come from its words again
    gate = SourceGate("salt", touched, limits, **(stored | {"digests": {"/p0": "old"}}))
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == expected
    assert gate.computed["/p0"] == (digest, keys) and "tokens" in src.__dict__
