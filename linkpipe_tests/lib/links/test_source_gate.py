"""The gate that copies a source before retrieval: only when nothing its rows read changed."""

from collections import Counter
from dataclasses import replace

import numpy as np

from linkpipe.lib.links import gate_reads
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.gate_reads import (
    GateRead,
    gate_digest,
    name_keys,
    named_by_keys,
    names_read,
    read_depth,
)
from linkpipe.lib.links.kept_list import KeptList
from linkpipe.lib.links.retrieval import (
    CandidateLimits,
    gather,
    linked_neighbours,
    search,
    semantic_neighbours,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import SitePage
from linkpipe.lib.links.source_gate import (
    NameChanges,
    SiteChanges,
    SourceGate,
    retrieve_ungated,
)
from linkpipe.lib.text.mentions import MentionCounts
from linkpipe.lib.vectors.ann import AnnIndex, build_index

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


def _searched() -> tuple[CandidateLimits, SiteContext, AnnIndex, dict[str, str]]:
    """Limits that read every hit, the twelve-page site, its index and its pages' facts."""
    site = _site({})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    pages = {p.url: "facts" for p in site.pages}
    return CandidateLimits(k=3, min_similarity=-1.0), site, ann, pages


def text() -> SourceText:
    """A source text naming /p0 and /p1 ("raster guide 0", "vector guide 1")."""
    return SourceText("Use the raster guide 0 and the vector guide 1.", [(0, 0, 46, "paragraph")])


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
        return gate_digest("salt", site, found, 0, text, page, names, ann, limits).digest

    assert digest() == digest()
    assert digest(names=keys[:1]) != digest()  # another name named
    assert digest(page="g") != digest()  # its stored facts
    other = SourceText("Use the raster guide 0 and the vector guide 1!", [(0, 0, 46, "paragraph")])
    assert digest(text=other) != digest()  # its text
    before = gate_digest("salt", site, found, 0, src, "f", keys, ann, limits)
    assert before.hits == tuple(ann.urls[i] for i in found.ids[0][: len(before.hits)])
    assert np.frombuffer(before.sims, np.float32).tolist() == found.sims[0][:4].tolist()
    # a hit's similarity is beside the digest, hit by hit
    found.sims[0][2] += 1e-6
    moved = gate_digest("salt", site, found, 0, src, "f", keys, ann, limits)
    assert moved.digest == before.digest and moved.moved(before.sims) == [before.hits[2]]
    assert before.moved(before.sims) == []
    # of the TF-IDF neighbours, the first k_lexical unlinked ones and the linked ones are read
    few = CandidateLimits(k=3, min_similarity=-1.0, k_lexical=2)
    linked = _site({"/p0": {"/p9"}})

    def lexical(order: list[str]) -> str:
        found.lexical[0] = order
        return gate_digest("salt", linked, found, 0, src, "f", keys, ann, few).digest

    read = lexical(["/p0", "/p5", "/p6", "/p7", "/p8", "/p9"])
    assert lexical(["/p0", "/p5", "/p6", "/p8", "/p9", "/p7"]) == read  # /p7, /p8 unread
    assert lexical(["/p0", "/p5", "/p6", "/p9"]) == read
    # the first two, as a set: their order is no row's
    assert lexical(["/p0", "/p6", "/p5", "/p7", "/p8", "/p9"]) == read
    assert lexical(["/p0", "/p5", "/p7", "/p6", "/p8", "/p9"]) != read
    assert lexical(["/p0", "/p5", "/p6", "/p7", "/p8"]) != read  # the linked one
    # a hit that falls below the minimum similarity changes what is read: the digest
    found.sims[0][2] = -2.0
    below = gate_digest("salt", site, found, 0, src, "f", keys, ann, limits)
    assert below.digest != before.digest


def test_a_touched_page_moving_among_the_hits_read_changes_the_digest_of_no_other() -> None:
    limits = CandidateLimits(k=3, min_similarity=-1.0)
    site = _site({})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    found = search(site, ["/p0"], ann, limits)
    src = text()
    keys = name_keys(site, src)
    before = gate_digest("salt", site, found, 0, src, "f", keys, ann, limits)
    assert len(before.hits) == 4  # the source itself and its three nearest pages
    # the page third in the hits is edited: it becomes the nearest after the source
    sims, ids = found.sims[0], found.ids[0]
    edited = before.hits[2]
    sims[[1, 2, 3]] = [sims[1] + 0.01, sims[1], sims[3]]
    ids[[1, 2, 3]] = [ids[2], ids[1], ids[3]]
    after = gate_digest("salt", site, found, 0, src, "f", keys, ann, limits)
    assert after.hits == (before.hits[0], edited, before.hits[1], before.hits[3])
    assert after.digest == before.digest  # the same pages read, in another order
    # compared by place, every page between its old and new place moved; by page, only it
    assert after.moved(before.sims) == [edited, before.hits[1]]
    assert after.moved(before.sims, before.hits) == [edited]
    changes = SiteChanges(frozenset({edited}), frozenset())
    stored = {"digests": {"/p0": before.digest}, "sims": {"/p0": before.sims}}
    by_place = SourceGate("salt", changes, limits, **stored, targets={"/p0": {edited}})
    assert not by_place.passes("/p0", after) and by_place.touched == {}  # the whole way
    gate = SourceGate(
        "salt", changes, limits, **stored, targets={"/p0": {edited}},
        hit_urls={"/p0": list(before.hits)},
    )  # fmt: skip
    assert not gate.passes("/p0", after) and gate.touched == {"/p0": frozenset({edited})}
    # an untouched page that moved is found, whatever its place
    sims[2] += 1e-6
    again = gate_digest("salt", site, found, 0, src, "f", keys, ann, limits)
    assert again.moved(before.sims, before.hits) == [edited, before.hits[1]]


def test_what_a_source_finds_does_not_depend_on_the_sources_searched_beside_it() -> None:
    # /p0 links /p9; /p1 links nine pages: searched beside it, /p0 once read a TF-IDF list
    # and embedding hits as deep as /p1 needs (its gate digest and labelled pairs with them)
    limits = CandidateLimits(k=3, min_similarity=-1.0, k_lexical=1)
    links = {"/p0": {"/p9"}, "/p1": {f"/p{i}" for i in range(3, 11) if i != 9} | {"/p11"}}
    site = _site(links)
    ann = build_index(site.vectors, [p.url for p in site.pages])
    src = text()
    alone = search(site, ["/p0"], ann, limits)
    beside = search(site, ["/p0", "/p1"], ann, limits)
    assert beside.ids.shape[1] > alone.ids.shape[1]  # the batch searched deeper for /p1
    assert alone.lexical[0] == beside.lexical[0] and len(alone.lexical[0]) <= 1 + 1 + 1
    for a, b in zip(alone.hits(0), beside.hits(0), strict=True):
        assert a.tolist() == b.tolist()
    named = named_by_keys(site, "/p0", name_keys(site, src))
    digests = [
        gate_digest("salt", site, found, 0, src, "f", name_keys(site, src), ann, limits).digest
        for found in (alone, beside)
    ]
    assert digests[0] == digests[1]
    first, second = (gather(site, found, 0, named, ann, limits) for found in (alone, beside))
    assert first == second and first.linked


def test_a_named_targets_part_of_the_digest_is_made_once_and_follows_its_counts() -> None:
    limits, site, ann, _ = _searched()
    found = search(site, ["/p0"], ann, limits)
    lexical = found.lexical[0]
    keys = name_keys(site, text())

    def read(context: SiteContext) -> bytes:
        return names_read(context, "/p0", keys, lexical, limits)

    first = read(site)
    named = named_by_keys(site, "/p0", keys)
    names = site.name_arrays()
    picked = names.best(keys, exclude="/p0")
    assert [names.mentions[p] for p in picked] == [named[t] for t in sorted(named)]
    assert sorted(named) == ["/p1"]  # /p0's own title is not read
    assert np.flatnonzero(site.name_parts_made).tolist() == picked.tolist()  # made when read
    assert first.startswith(site.name_parts[picked].tobytes())
    assert read(site) == first  # from the parts held
    assert read(_site({})) == first  # another context makes the same bytes anew
    # the name's counts change: the arrays and parts are made again; a name no longer strong
    # enough to be found changes the digest, and back as it was, the bytes as they were
    key = tuple(named["/p1"].key.split(" "))
    assert named["/p1"].probability >= gate_reads.MIN_MENTION_PROBABILITY  # its prior, 0.4
    still = MentionCounts(Counter({key: 2}))  # mentioned twice, never linked: 0.2
    weak = MentionCounts(Counter({key: 40}))  # 40 times: 0.019
    site.mentions.add(still)
    assert site.name_arrays() is not names and read(site) == first
    site.mentions.add(still, sign=-1)
    site.mentions.add(weak)
    assert read(site) != first
    site.mentions.add(weak, sign=-1)
    assert read(site) == first


def test_a_source_passes_only_when_nothing_it_reads_changed() -> None:
    changes = SiteChanges(touched=frozenset({"/y"}), relinked=frozenset({"/c"}))
    sims = np.array([0.9, 0.8], np.float32)
    stored = sims.tobytes()
    gate = SourceGate(
        "salt",
        changes,
        CandidateLimits(),
        digests={"/a": "d1", "/b": "d2", "/c": "d3", "/d": "d4"},
        targets={"/a": {"/x"}, "/b": {"/x", "/y"}, "/c": {"/x"}, "/d": {"/x"}},
        sims={"/a": stored, "/b": stored, "/c": stored},
    )

    def read(digest: str, hits: tuple[str, ...] = ("/x", "/y"), moved: int = -1) -> GateRead:
        now = sims.copy()
        if moved >= 0:
            now[moved] += 0.01
        return GateRead(digest, hits, now.tobytes(), len(hits))

    assert not gate.passes("/a", read("another digest"))
    assert not gate.passes("/b", read("d2"))  # one of its targets changed
    assert not gate.passes("/c", read("d3"))  # a link to it changed: its co-citations
    assert not gate.passes("/new", read(""))  # never seen
    assert not gate.passes("/d", read("d4"))  # no similarities stored
    assert not gate.passes("/a", read("d1", moved=0))  # an untouched hit's similarity moved
    assert gate.touched == {"/b": frozenset({"/y"})} and gate.quiet == []
    # a touched hit's similarity moved: it is no target of /a, whose rows do not read it
    assert gate.passes("/a", read("d1", moved=1))
    assert gate.passes("/a", read("d1"))
    assert gate.quiet == ["/a", "/a"]
    closed = SourceGate("salt", changes, CandidateLimits(), digests={"/a": "d1"}, open=False)
    assert not closed.passes("/a", read("d1")) and closed.quiet == []


def test_a_source_stopped_for_a_touched_target_keeps_its_stored_name_keys() -> None:
    limits, site, ann, pages = _searched()
    first = SourceGate("salt", SiteChanges(frozenset(), frozenset()), limits, open=False)
    expected = retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, first, pages)
    digest, keys, sims = first.computed["/p0"][:3]
    assert keys == ["raster guid 0", "vector guid 1"]
    touched = SiteChanges(frozenset({"/p1"}), frozenset())
    stored = {
        "digests": {"/p0": digest},
        "keys": {"/p0": keys},
        "targets": {"/p0": {"/p1"}},
        "sims": {"/p0": sims},
    }
    gate = SourceGate("salt", touched, limits, **stored)
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == expected
    assert gate.quiet == [] and gate.computed["/p0"][:3] == (digest, keys, sims)
    assert gate.touched == {"/p0": frozenset({"/p1"})}  # its pairs but /p1's are copied
    assert "tokens" not in src.__dict__  # the keys came from the store, not from its words
    # stored under another digest (another text, say): its keys come from its words again
    gate = SourceGate("salt", touched, limits, **(stored | {"digests": {"/p0": "old"}}))
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == expected
    assert gate.computed["/p0"][:3] == (digest, keys, sims) and "tokens" in src.__dict__
    # ... unless the text they were looked up in is stored and is this one: whatever else the
    # digest read changed (a hit's similarity, a name's count), the keys are the stored ones
    text_digest = first.computed["/p0"].text_digest
    assert len(text_digest) == 32 and gate.computed["/p0"].text_digest == text_digest
    other = stored | {"digests": {"/p0": "old"}, "texts": {"/p0": text_digest}}
    gate = SourceGate("salt", touched, limits, **other)
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == expected
    assert gate.computed["/p0"][:3] == (digest, keys, sims) and "tokens" not in src.__dict__
    # stored with a name the text does not hold: taken as stored (so the text digest must be
    # of the very text, code and settings the keys were looked up with)
    gate = SourceGate("salt", touched, limits, **(other | {"keys": {"/p0": keys[:1]}}))
    found = retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, gate, pages)
    assert gate.computed["/p0"].name_keys == keys[:1] and found != expected
    # another text, or the same under another salt (code, settings): looked up again
    for salt, texts in (("salt", {"/p0": "another text"}), ("other salt", {"/p0": text_digest})):
        gate = SourceGate(salt, touched, limits, **(stored | {"digests": {"/p0": "old"}}),
                          texts=texts)  # fmt: skip
        src = text()
        retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages)
        assert gate.computed["/p0"].name_keys == keys and "tokens" in src.__dict__


def test_an_edited_target_found_by_a_source_stops_its_pair_not_the_source() -> None:
    # the previous crawl stored other similarities for one hit (its page was edited since)
    limits = CandidateLimits(k=3, min_similarity=-1.0)
    site = _site({})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    pages = {p.url: "facts" for p in site.pages}
    text = "Use the raster guide 0 and the vector guide 1."
    first = SourceGate("salt", SiteChanges(frozenset(), frozenset()), limits, open=False)
    src = {"/p0": SourceText(text, [(0, 0, 46, "paragraph")])}
    expected = retrieve_ungated(site, ["/p0"], src, ann, limits, first, pages)
    digest, keys, sims = first.computed["/p0"][:3]
    hits = search(site, ["/p0"], ann, limits).ids[0][1:4]  # the three read after the source
    edited = ann.urls[int(hits[1])]
    before = np.frombuffer(sims, np.float32).copy()
    before[2] -= 0.05  # the edited page's similarity before its edit
    stored = {"digests": {"/p0": digest}, "keys": {"/p0": keys}}
    targets = {"/p0": set(expected[0].neighbours) | set(expected[0].linked)}
    assert edited in targets["/p0"]
    for touched, gated in ((frozenset({edited}), True), (frozenset({"/p11"}), False)):
        changes = SiteChanges(touched, frozenset())
        gate = SourceGate(
            "salt", changes, limits, **stored, targets=targets, sims={"/p0": before.tobytes()}
        )
        found = retrieve_ungated(site, ["/p0"], src, ann, limits, gate, pages)
        assert found == expected and gate.quiet == []
        # gated: the source's other pairs are copied, only the edited page's is computed
        assert gate.touched == ({"/p0": frozenset({edited})} if gated else {})


def test_when_the_sites_names_change_a_source_is_tokenised_only_if_it_may_hold_a_new_one() -> None:
    limits, site, ann, pages = _searched()
    first = SourceGate("salt", SiteChanges(frozenset(), frozenset()), limits, open=False)
    retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, first, pages)
    digest, keys, sims = first.computed["/p0"][:3]
    stored = {"digests": {"/p0": digest}, "targets": {"/p0": set()}, "sims": {"/p0": sims}}
    none = SiteChanges(frozenset(), frozenset())
    # a name gone since: dropped from the stored keys, the text is not tokenised, and the
    # source's stored row is written again with the keys it now holds
    gone = NameChanges(removed=frozenset({"colour guid 9"}))
    gate = SourceGate("salt", none, limits, **stored, keys={"/p0": [*keys, "colour guid 9"]},
                      names=gone)  # fmt: skip
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == []
    assert gate.quiet == ["/p0"] and gate.rekeyed["/p0"][:3] == (digest, keys, sims)
    assert "tokens" not in src.__dict__
    # a name added that the source may hold: its words are looked up again
    added = NameChanges(added=frozenset({"raster guid 0"}), reach=frozenset({"/p0"}))
    gate = SourceGate("salt", none, limits, **stored, keys={"/p0": keys[1:]}, names=added)
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == []
    assert gate.quiet == ["/p0"] and gate.rekeyed["/p0"][:3] == (digest, keys, sims)
    assert "tokens" in src.__dict__
    # one it cannot hold (not in reach): the stored keys stand, untokenised, not rewritten
    elsewhere = NameChanges(added=frozenset({"curve guid 7"}), reach=frozenset({"/p3"}))
    gate = SourceGate("salt", none, limits, **stored, keys={"/p0": keys}, names=elsewhere)
    src = text()
    assert retrieve_ungated(site, ["/p0"], {"/p0": src}, ann, limits, gate, pages) == []
    assert gate.quiet == ["/p0"] and gate.rekeyed == {} and "tokens" not in src.__dict__


def test_a_quiet_source_stores_its_searches_again_unless_it_kept_both() -> None:
    limits, site, ann, pages = _searched()
    first = SourceGate("salt", SiteChanges(frozenset(), frozenset()), limits, open=False)
    retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, first, pages)
    computed = first.computed["/p0"]
    digest, keys, sims = computed[:3]
    assert computed.gate_hits and computed.hits_searched >= len(computed.gate_hits)
    stored = {"digests": {"/p0": digest}, "targets": {"/p0": set()}, "sims": {"/p0": sims}}
    none = SiteChanges(frozenset(), frozenset())
    # searched again: quiet, its rows copied, its searches stored as this crawl found them
    gate = SourceGate("salt", none, limits, **stored, keys={"/p0": keys})
    assert retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, gate, pages) == []
    assert gate.quiet == ["/p0"] and gate.searched == {"/p0": computed}
    # both searches kept from the stored ones: nothing to store again
    hits = (
        np.frombuffer(sims, np.float32),
        np.array([ann.urls.index(u) for u in computed.gate_hits]),
    )
    if computed.hits_searched > len(computed.gate_hits):
        hits = (np.append(hits[0], np.float32(-np.inf)), np.append(hits[1], -1))
    lexical = KeptList(tuple(computed.lexical_hits), computed.lexical_cut, computed.lexical_floor)
    gate = SourceGate(
        "salt", none, limits, **stored, keys={"/p0": keys},
        kept_hits={"/p0": hits}, kept_lists={"/p0": lexical},
    )  # fmt: skip
    assert retrieve_ungated(site, ["/p0"], {"/p0": text()}, ann, limits, gate, pages) == []
    assert gate.quiet == ["/p0"] and gate.searched == {} and gate.rekeyed == {}


def test_a_search_takes_the_kept_hits_and_lists_of_their_sources_and_finds_the_others() -> None:
    limits, site, ann, _ = _searched()
    sources = ["/p0", "/p1", "/p2", "/p3"]
    fresh = search(site, sources, ann, limits)
    hit_sims, hit_ids = fresh.hits(1)
    shorter = (hit_sims[:2].copy(), hit_ids[:2].copy())  # what a kept source read, say
    kept = {"/p1": shorter, "/p9": shorter}  # /p9: another batch's, not searched here
    lists = {"/p2": fresh.lists[2], "/p9": fresh.lists[3]}
    again = search(site, sources, ann, limits, kept, lists)
    assert again.sources == sources and again.depth[1] == 2
    assert [h.tolist() for h in again.hits(1)] == [h.tolist() for h in shorter]
    for qi in (0, 2, 3):  # searched as before
        assert [h.tolist() for h in again.hits(qi)] == [h.tolist() for h in fresh.hits(qi)]
    assert again.lists == fresh.lists and again.lexical == fresh.lexical
    assert all(listed.urls for listed in again.lists)  # the twelve pages share words


def test_a_quiet_source_stores_its_searches_again_unless_both_were_kept_as_stored() -> None:
    """A quiet source's row is copied; what it stores of its searches is written again when
    an index was searched, or when its TF-IDF list was kept otherwise than stored (patched,
    or its cut now a range): the next crawl must read this crawl's list, cut and floor."""
    hits = (np.array([0.9], np.float32), np.array([1]))
    kept = KeptList(("/x",), 0.2, 0.5)
    gate = SourceGate(
        "salt",
        SiteChanges(touched=frozenset(), relinked=frozenset()),
        CandidateLimits(),
        kept_hits={"/a": hits, "/b": hits, "/c": hits, "/d": hits},
        kept_lists={
            "/a": kept,
            "/b": replace(kept, cut_high=0.3, as_stored=False),  # pages entered
            "/c": replace(kept, urls=("/y",), floor=0.6, as_stored=False),  # patched
        },
    )
    for source in ("/a", "/b", "/c", "/d"):  # /d: its list searched
        lexical = gate.kept_lists.get(source, KeptList(("/z",), None, 0.0))
        read = GateRead("d", ("/x",), hits[0].tobytes(), 1, lexical)
        gate.searched_again(source, read, ["k"])
    assert sorted(gate.searched) == ["/b", "/c", "/d"]
    stored = gate.searched["/b"]
    assert (stored.lexical_hits, stored.lexical_cut, stored.lexical_cut_high) == (["/x"], 0.2, 0.3)
    assert (gate.searched["/c"].lexical_hits, gate.searched["/c"].lexical_floor) == (["/y"], 0.6)
