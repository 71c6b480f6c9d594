"""Anchor placement on real sentences: exact mentions, windows, and the rules."""

from linkpipe.lib.content.extraction import extract_main_content
from linkpipe.lib.links.anchors import (
    SourceText,
    TargetProfile,
    target_phrases,
    title_phrases,
)
from linkpipe.lib.links.lexical_anchors import place_anchor
from linkpipe.lib.links.name_anchors import name_hits
from linkpipe.lib.text.lexical import is_generic_anchor

HTML = """<html><body><main><article><h1>Historical optimization explained</h1>
<p>Many teams forget to revisit older articles that once brought steady traffic.
Click here to read more about it.</p>
<h2>Keyword research basics</h2>
<p>Good <a href="/glossary/keyword-research/">keyword research</a> starts with the questions
readers ask. A content audit checklist helps you find pages that lost clicks.</p>
</article></main></body></html>"""


def source() -> SourceText:
    content = extract_main_content(HTML, "http://a.test/blog/x/")
    sents = [(s.paragraph_idx, s.start, s.end, s.block_kind) for s in content.sentences]
    return SourceText(content.text, sents, [(link.start, link.end) for link in content.links])


def test_title_phrases_strip_guide_prefixes():
    assert title_phrases("The Complete Guide to Content Audits: A Checklist") == [
        "The Complete Guide to Content Audits: A Checklist",
        "Content Audits",
        "A Checklist",
    ]


def test_exact_title_mention_wins_with_offsets():
    src = source()
    target = TargetProfile(
        "http://a.test/guides/audit/",
        target_phrases("Content audit checklist", "", "content audit checklist", []),
        {"audit": 1.0},
    )
    best = place_anchor(src, target)[0]
    assert best.anchor_text == "content audit checklist".capitalize().replace("Content", "content")
    assert src.text[best.start : best.end] == best.anchor_text
    assert best.sentence == "A content audit checklist helps you find pages that lost clicks."
    assert best.source_kind == "title" and best.quality == 1.0


def test_window_from_term_weights_for_a_vocabulary_gap():
    src = source()
    terms = {"revisit": 0.9, "older": 0.8, "articl": 0.9, "updat": 1.0, "traffic": 0.4}
    target = TargetProfile(
        "http://a.test/guides/historical-optimization/",
        target_phrases("Historical optimization", "", "", []),
        terms,
    )
    best = place_anchor(src, target)[0]
    # "revisit older articles" is no phrase of the parse: "revisit" heads "to ... traffic"
    assert best.anchor_text == "older articles"
    assert best.source_kind == "phrase"
    assert src.text[best.start : best.end] == "older articles"


def test_never_inside_existing_link_or_heading_and_never_generic():
    src = source()
    # "keyword research" occurs inside a heading and inside an existing link only
    target = TargetProfile(
        "http://a.test/glossary/keyword-research/",
        target_phrases("Keyword research", "", "", []),
        {"keyword": 1.0, "research": 1.0},
    )
    for choice in place_anchor(src, target):
        assert choice.anchor_text.lower() != "keyword research"
    assert is_generic_anchor("Click here") and is_generic_anchor("read more")
    assert not is_generic_anchor("content audit checklist")


def test_no_fit_returns_nothing():
    src = source()
    target = TargetProfile(
        "http://a.test/recipes/", [("Sourdough baking", "title")], {"sourdough": 1.0}
    )
    assert place_anchor(src, target) == []


def test_a_one_word_name_used_as_a_verb_is_no_anchor_but_as_a_noun_it_is():
    """On an API reference "reset" names the page of the method and is also a verb."""
    text = "The state is reset to its initial value. See the reset method for details."
    sents = [(0, 0, 40, "paragraph"), (0, 41, len(text), "paragraph")]
    src = SourceText(text, sents)
    target = TargetProfile(
        "http://a.test/api/reset/", [("reset", "title")], {}, frozenset({("reset",)})
    )
    choices = place_anchor(src, target)
    assert [(c.anchor_text, c.start) for c in choices] == [("reset", text.index("reset method"))]


def test_release_drops_what_the_text_gives_and_computes_it_again_the_same():
    """A shard releases each batch's sources after placing them: every cached property goes
    (none is missing from the list) and comes back equal, with the same anchor."""
    import functools

    from linkpipe.lib.links import anchors

    def derived(src: SourceText) -> dict[str, object]:
        codes, numbers = src.stem_codes
        memo = "name_hit_memo"  # filled as names are looked up: see the test below
        values = {name: getattr(src, name) for name in anchors._DERIVED if name != memo}
        order, starts = src.stem_index
        arrays = {"stem_codes": (codes, numbers.tolist())}
        arrays |= {"stem_index": (order.tolist(), starts.tolist())}
        return values | arrays | {"token_sentence": src.token_sentence.tolist()}

    cached = {n for n, v in vars(SourceText).items() if isinstance(v, functools.cached_property)}
    assert cached == set(anchors._DERIVED)
    src = source()
    target = TargetProfile("/t", [("Historical optimization", "title")], {"revisit": 1.0})
    before, placed = derived(src), place_anchor(src, target)
    src.release()
    assert not cached & set(vars(src))
    assert derived(src) == before and len(src.tokens) > 30
    assert place_anchor(src, target) == placed


def test_a_stems_positions_are_its_tokens_in_the_linkable_sentences():
    """Read from arrays grouped by stem, they are what a walk over the linkable sentences'
    tokens gives: each stem's tokens in order, each token's sentence number, nothing outside
    them (a stem only outside them, or not in the text, has none)."""
    src = source()
    walked: dict[str, list[int]] = {}
    sentence = [-1] * len(src.tokens)
    for number, (_, _, _, lo, hi) in enumerate(src.ranges):
        for i in range(lo, hi):
            walked.setdefault(src.stems[i], []).append(i)
            sentence[i] = number
    assert {stem: src.positions_of(stem) for stem in set(src.stems)} == {
        stem: walked.get(stem, []) for stem in set(src.stems)
    }
    assert src.token_sentence.tolist() == sentence
    assert len(src.ranges) > 1 and -1 in sentence  # a heading's words are outside
    outside = {src.stems[i] for i, n in enumerate(sentence) if n < 0} - set(walked)
    assert outside and all(src.positions_of(stem) == [] for stem in outside)
    assert src.positions_of("no such stem") == []
    assert all(type(i) is int for stem in walked for i in src.positions_of(stem))


def test_never_inside_a_pre_block_but_in_a_quotation():
    from linkpipe_tests.lib.content.test_extraction_summaries import REFERENCE_PAGE

    content = extract_main_content(REFERENCE_PAGE, "http://docs.test/sql-createserver.html")
    sents = [(s.paragraph_idx, s.start, s.end, s.block_kind) for s in content.sentences]
    src = SourceText(content.text, sents, [(link.start, link.end) for link in content.links])
    target = TargetProfile(
        "http://docs.test/ddl-foreign-data.html",
        target_phrases("Foreign Data Wrapper", "", "", []),
        {"foreign": 1.0, "data": 1.0, "wrapper": 1.0},
    )
    # the name occurs in both <pre> blocks (the synopsis, the example) and in the quotation
    assert content.text.count("FOREIGN DATA WRAPPER") == 2
    choices = place_anchor(src, target)
    assert [c.anchor_text for c in choices] == ["foreign data wrapper"]
    (quotation,) = [b for b in content.blocks if b.kind == "quote"]
    assert quotation.start <= choices[0].start < choices[0].end <= quotation.end
    assert choices[0].source_kind == "title"


def test_a_targets_name_hits_are_found_once_per_source() -> None:
    src = source()
    target = TargetProfile("/audit/", [("Content audit checklist", "title")], {})
    hits = name_hits(src, target)
    assert [(kind, -minus_n) for _, _, minus_n, kind in hits] == [("title", 3)]
    number, i, _, _ = hits[0]
    assert src.text[src.tokens[i][1] : src.tokens[i + 2][2]] == "content audit checklist"
    assert name_hits(src, target) is hits  # asked again (to place it): not looked up again
    # another profile of the URL (other names) is looked up afresh
    other = TargetProfile("/audit/", [("keyword research", "title")], {})
    assert [kind for *_, kind in name_hits(src, other)] == ["title"]
    assert name_hits(src, other) is not hits
    src.release()  # the text's derived values go, the hits with them
    assert "name_hit_memo" not in src.__dict__ and name_hits(src, target) == hits
