"""Candidate generation: semantic neighbours plus the pages a source names, with evidence."""

import json
from dataclasses import replace

import numpy as np
import pytest

from linkpipe.lib.links.anchors import AnchorChoice, SourceText
from linkpipe.lib.links.candidates import build_candidates
from linkpipe.lib.links.edge_set import EdgeSet
from linkpipe.lib.links.name_anchors import name_quality
from linkpipe.lib.links.rows import candidate_pairs_of_rows
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import SitePage
from linkpipe.lib.vectors.ann import build_index

TEXTS = {
    "/a": "Install GDAL before the raster tools. The rest is about colour balance.",
    "/b": "Raster tools need GDAL; see the GDAL page for builds.",
    "/c": "Vector layers are read with GDAL as well.",
    "/gdal": "GDAL is a translator library for raster and vector formats.",
    "/d": "Colour balance tips for photographs.",
}
TITLES = {
    "/a": "Raster tools",
    "/b": "Builds",
    "/c": "Vector layers",
    "/gdal": "GDAL",
    "/d": "Tips",
}


def _site() -> tuple[SiteContext, dict[str, SourceText]]:
    pages = [SitePage(u, TITLES[u], "", "", t) for u, t in TEXTS.items()]
    # /a is semantically close to /d only; /gdal is orthogonal to /a
    vectors = np.array(
        [[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1], [0.9, 0.436, 0]], dtype=np.float32
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    links = {"/b": {"/gdal"}, "/c": {"/gdal"}}
    site = SiteContext(pages, vectors, links, {}, {"/gdal": ["GDAL"]})
    text = TEXTS["/a"]
    first_end = text.index(".") + 1
    sentences = [(0, 0, first_end, "paragraph"), (0, first_end + 1, len(text), "paragraph")]
    texts = {"/a": SourceText(text, sentences)}
    return site, texts


def test_a_named_page_is_a_candidate_with_its_link_probability_and_anchor() -> None:
    site, texts = _site()
    ann = build_index(site.vectors, [p.url for p in site.pages])
    rows = build_candidates(site, ["/a"], texts, ann, k=1, k_lexical=0)
    by_target = {r.target_url: r for r in rows}
    assert sorted(by_target) == ["/d", "/gdal"]
    semantic, named = by_target["/d"], by_target["/gdal"]
    cosine = site.vectors[site.row_of["/a"]] @ site.vectors[site.row_of["/d"]]
    assert (semantic.semantic_sim, semantic.mention_score) == (round(float(cosine), 6), 0.0)
    assert semantic.mention_phrase is None
    # "GDAL" is in /a, /b and /c (not counting /gdal itself); /b and /c link it:
    # (2 + 2 x 0.1) / (3 + 2) = 0.44
    assert named.semantic_sim == 0.0
    assert (named.mention_score, named.mention_phrase) == (0.44, "GDAL")
    assert (named.mention_pages, named.mention_links) == (3, 2)
    # the one-word name is linked often enough on this site to be the anchor
    best = named.best_anchor
    assert best is not None
    assert (best.anchor_text, best.start, best.end) == ("GDAL", 8, 12)
    assert best.source_kind == "title" and named.title_match == 1.0
    assert best.sentence == "Install GDAL before the raster tools."
    record = named.record()
    assert (record["anchor_text"], record["anchor_start"], record["anchor_end"]) == ("GDAL", 8, 12)
    assert (record["anchor_source"], record["sentence_start"]) == ("title", 0)


def test_names_below_the_probability_floor_bring_no_candidate() -> None:
    site, texts = _site()
    # nobody links GDAL: (0 + 2 x 0.1) / (3 + 2) = 0.04 < 0.05
    site = SiteContext(site.pages, site.vectors, {}, {}, {"/gdal": ["GDAL"]})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    rows = build_candidates(site, ["/a"], texts, ann, k=1, k_lexical=0)
    assert [r.target_url for r in rows] == ["/d"]


def test_a_named_page_already_linked_from_the_content_is_no_candidate() -> None:
    site, texts = _site()
    links = {"/a": {"/gdal"}, "/b": {"/gdal"}, "/c": {"/gdal"}}
    site = SiteContext(site.pages, site.vectors, links, {}, {"/gdal": ["GDAL"]})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    rows = build_candidates(site, ["/a"], texts, ann, k=1, k_lexical=0)
    assert [r.target_url for r in rows if not r.already_linked_content] == ["/d"]
    # ... but it comes back as a labelled row: evidence without the link's own share
    (linked,) = [r for r in rows if r.already_linked_content]
    assert linked.target_url == "/gdal" and linked.anchors == () and linked.anchor_key is None
    # /a, /b and /c name and link GDAL; leaving /a's own link out: (2 + 2 x 0.1) / (2 + 2)
    assert (linked.mention_score, linked.mention_pages, linked.mention_links) == (0.55, 2, 2)
    assert linked.title_match == 1.0  # the title "GDAL" is in /a's text
    assert linked.semantic_sim == 0.0


def test_an_anchor_text_inside_the_link_is_no_title_match_of_its_labelled_pair() -> None:
    """The site knows "translator library" as an anchor of /gdal only because /a links it
    with that text: counted, the label would leak into the evidence."""
    site, _ = _site()
    text = "Read about the translator library first."
    start = text.index("translator")
    source = SourceText(text, [(0, 0, len(text), "paragraph")], [(start, start + 18)])
    known = {"/gdal": ["translator library"]}
    site = SiteContext(site.pages, site.vectors, {"/a": {"/gdal"}}, {}, known)
    assert name_quality(source, site.profile("/gdal")) == 0.0
    plain = SourceText(text, [(0, 0, len(text), "paragraph")])  # the same words, unlinked
    assert name_quality(plain, site.profile("/gdal")) == 1.0


def test_a_candidate_row_reads_back_as_written() -> None:
    site, texts = _site()
    ann = build_index(site.vectors, [p.url for p in site.pages])
    rows = build_candidates(site, ["/a"], texts, ann, k=1, k_lexical=0)
    extra = AnchorChoice("raster tools", 24, 36, "Install GDAL before the raster tools.", 0, 0,
                         "phrase", 0.7)  # fmt: skip
    rows.append(replace(rows[-1], anchors=(*rows[-1].anchors, extra)))
    rows.append(replace(rows[0], anchors=()))
    for row in rows:
        record = json.loads(json.dumps(row.record()))  # what DuckDB gives back
        (read,) = candidate_pairs_of_rows(list(record), [tuple(record.values())])
        assert read == row and len(read.anchors) == len(row.anchors)
        assert list(read.anchors) == list(row.anchors) and read.anchors[1:] == row.anchors[1:]
        assert read.best_anchor == row.best_anchor
    assert json.loads(rows[-2].record()["anchor_alternatives"]) == [
        {"anchor_text": "raster tools", "start": 24, "end": 36,
         "sentence": "Install GDAL before the raster tools.", "sentence_start": 0,
         "paragraph_idx": 0, "source_kind": "phrase", "quality": 0.7}
    ]  # fmt: skip
    none = rows[-1].record()
    assert (none["anchor_text"], none["anchor_source"], none["anchor_quality"]) == (
        None,
        "none",
        0.0,
    )
    assert none["anchor_alternatives"] == "[]"


def test_sources_are_placed_in_groups_bounded_in_count_and_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from linkpipe.lib.links import placement
    from linkpipe.lib.links.placement import Plan, _place_groups
    from linkpipe.lib.text.phrases import PhraseJudge

    def plan(name: str, words: int | None) -> Plan:
        text = None
        if words is not None:
            text = SourceText(" ".join(["word"] * words), [], judge=PhraseJudge(None))
        return Plan(name, text, [], [], [])

    sizes = [10] * 20 + [6_000, 6_000, 20_000, 5]
    plans = [plan(f"/p{i}", n) for i, n in enumerate(sizes)] + [plan("/gone", None)]
    monkeypatch.setattr(placement, "PLACE_GROUP", 16)
    monkeypatch.setattr(placement, "PLACE_GROUP_WORDS", 10_000)
    groups = [[p.source for p in g] for g in _place_groups(plans)]
    assert [len(g) for g in groups] == [16, 5, 1, 1, 2]  # 16 pages; 4 + 6,000 words; ...
    assert groups[1][-1] == "/p20" and groups[2] == ["/p21"] and groups[3] == ["/p22"]
    assert groups[4] == ["/p23", "/gone"]  # a source without text weighs nothing
    assert [r for g in groups for r in g] == [p.source for p in plans]  # order kept


def test_a_pair_linked_from_the_navigation_is_flagged_and_stays_a_candidate() -> None:
    site, texts = _site()
    nav = EdgeSet.of_pairs([("/a", "/gdal"), ("/gdal", "/a"), ("/b", "/d")])
    site = SiteContext(site.pages, site.vectors, site.content_links, nav, {"/gdal": ["GDAL"]})
    ann = build_index(site.vectors, [p.url for p in site.pages])
    rows = build_candidates(site, ["/a"], texts, ann, k=1, k_lexical=0)
    flags = {r.target_url: (r.already_linked_nav, r.already_linked_content) for r in rows}
    assert flags == {"/d": (False, False), "/gdal": (True, False)}


def test_graph_signals_count_as_the_set_formulas_do() -> None:
    """Co-citation and shared out-links, counted without copying the pages' link sets, equal
    the plain set formulas on random link graphs with self-links and links between the two."""
    import random
    from types import SimpleNamespace

    from linkpipe.lib.links.candidates import graph_signals

    rng = random.Random(5)
    pages = [f"/p{i}" for i in range(12)]
    for _ in range(60):
        links = {p: set(rng.sample(pages, rng.randint(0, 8))) for p in pages}
        linked_from: dict[str, set[str]] = {}
        for s, ts in links.items():
            for t in ts:
                linked_from.setdefault(t, set()).add(s)
        site = SimpleNamespace(content_links=links, linked_from=linked_from)
        for source in pages[:4]:
            for target in pages:
                a, b = linked_from.get(source, set()), linked_from.get(target, set())
                out_a, out_b = links[source] - {target}, links[target] - {source}
                union = out_a | out_b
                expected = (
                    len(a & b) / (len(a & b) + 2.0),
                    len(out_a & out_b) / len(union) if union else 0.0,
                )
                assert graph_signals(site, source, target) == expected  # type: ignore[arg-type]
