"""Windows made only of words the whole site uses ("ikiwiki plugins" on ikiwiki's wiki) are no
anchors: they give way to the next window; an exact name of the target is still placed."""

import numpy as np

from linkpipe.lib.content.extraction import extract_main_content
from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchors import SourceText, TargetProfile
from linkpipe.lib.links.candidates import build_candidates
from linkpipe.lib.links.lexical_anchors import best_windows, place_anchor
from linkpipe.lib.links.semantic_anchors import encode_sources, semantic_windows, window_vectors
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import SitePage
from linkpipe.lib.vectors.ann import build_index
from linkpipe_tests.lib.links.word_vectors import seeded_unit_vectors

TOPICS = ["calendar", "sidebar", "comments", "search", "tags", "themes"]
TOPICS += ["openid", "smileys", "rename", "shortcuts", "meta", "toc"]
SOURCE = """<html><body><main><p>The ikiwiki plugins add new markup features.
Subversion keeps the revision history of every change.</p></main></body></html>"""


_encode = seeded_unit_vectors


def _source() -> SourceText:
    content = extract_main_content(SOURCE, "http://wiki.test/overview/")
    sentences = [(s.paragraph_idx, s.start, s.end, s.block_kind) for s in content.sentences]
    return SourceText(content.text, sentences)


def _site(src: SourceText, target_title: str) -> tuple[SiteContext, np.ndarray]:
    """14 pages: 12 plugin pages and the source say "ikiwiki" and "plugins"; the target (/t)
    means "ikiwiki plugins" with a little "markup" (its vector), the source is closest to it."""
    pages = [
        SitePage(f"/{t}", t.capitalize(), "", t, f"The {t} plugin of ikiwiki. Plugins extend it.")
        for t in TOPICS
    ]
    pages.append(SitePage("/overview", "Overview", "", "overview", src.text))
    pages.append(SitePage("/t", target_title, "", "t", "How to write new modules."))
    target_vec = _encode(["ikiwiki", "plugins"]).sum(axis=0) + 0.6 * _encode(["markup"])[0]
    target_vec /= np.linalg.norm(target_vec)
    vectors = np.random.default_rng(1).standard_normal((len(pages), 16)).astype(np.float32)
    vectors[-2:] = target_vec
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return SiteContext(pages, vectors), target_vec


def _placed(site: SiteContext, src: SourceText) -> list[tuple[str, str]]:
    """The placements of the pair (/overview, /t) through candidate generation (semantic)."""
    ann = build_index(site.vectors, [p.url for p in site.pages])
    words = encode_sources({"/overview": src}, _encode)
    rows = build_candidates(
        site, ["/overview"], {"/overview": src}, ann, k=1, k_lexical=0, word_vectors=words
    )
    (row,) = [r for r in rows if r.target_url == "/t"]
    return [(c.anchor_text, c.source_kind) for c in row.anchors]


def test_the_ubiquitous_stems_are_those_of_at_least_half_the_pages() -> None:
    src = _source()
    site, _ = _site(src, "Extending the wiki")
    # 13 of 14 pages say "ikiwiki" and "plugin(s)", 12 "extend"; "markup" is on one page
    assert site.ubiquitous == frozenset({"ikiwiki", "plugin", "extend"})
    # they are part of every target's anchor key: another set, another key
    profile, vector = site.profile("/t"), site.vectors[site.row_of["/t"]].tobytes()
    digest = anchor_reuse.stems_digest(site.ubiquitous)
    assert site.target_key("/t") == anchor_reuse.target_key(profile, vector, True, digest)
    fewer = anchor_reuse.stems_digest({"ikiwiki", "plugin"})
    assert anchor_reuse.target_key(profile, vector, True, fewer) != site.target_key("/t")
    assert digest == anchor_reuse.stems_digest({"plugin", "extend", "ikiwiki"})  # any order


def test_a_window_of_only_ubiquitous_words_gives_way_to_the_next() -> None:
    src = _source()
    site, target_vec = _site(src, "Extending the wiki")
    profile = site.profile("/t")
    words = encode_sources({"/overview": src}, _encode).of("/overview")
    assert words is not None
    # without the rule the best semantic window is "ikiwiki plugins" ...
    best = semantic_windows(src, window_vectors(src, words), profile, target_vec)
    assert [c.anchor_text for c in best] == ["ikiwiki plugins", "revision history"]
    # ... made only of words the whole site uses: the next window of its sentence takes its place
    assert _placed(site, src) == [("markup features", "semantic")]
    # the lexical path keeps the same rule
    terms = {"ikiwiki": 1.0, "plugin": 1.0, "markup": 0.8, "featur": 0.5}
    lexical = TargetProfile("/t", [("Extending the wiki", "title")], terms)
    assert [c.anchor_text for c in best_windows(src, lexical)] == [
        "ikiwiki plugins",
        "markup features",
    ]
    assert [c.anchor_text for c in best_windows(src, lexical, ubiquitous=site.ubiquitous)] == [
        "markup features"
    ]
    placed = place_anchor(src, lexical, ubiquitous=site.ubiquitous)
    assert [(c.anchor_text, c.source_kind) for c in placed] == [("markup features", "phrase")]


def test_an_exact_title_of_ubiquitous_words_is_still_placed() -> None:
    src = _source()
    site, _ = _site(src, "Ikiwiki plugins")
    assert {"ikiwiki", "plugin"} <= site.ubiquitous
    placed = _placed(site, src)
    assert placed[0] == ("ikiwiki plugins", "title")
    assert ("markup features", "semantic") in placed  # a window beside it, not over it
