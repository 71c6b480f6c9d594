"""Link probability of page names, counted over a small hand-made site."""

import pytest

from linkpipe.lib.links.anchors import STOP_STEMS, SourceText, TargetProfile
from linkpipe.lib.links.name_anchors import exact_mentions
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.mentions import Mention, MentionConfig, MentionIndex

NAMES = {
    "/gdal": [("GDAL", "title"), ("GDAL library", "known_anchor")],
    "/urls": [("URL dispatcher", "title"), ("reverse", "known_anchor")],
    "/about": [("About", "title")],
}
TEXTS = {
    "/r1": "Upgrade GDAL before you call reverse on the URL dispatcher.",
    "/r2": "This release needs GDAL 3. The GDAL library is optional.",
    "/r3": "GDAL support is experimental; reverse the order of the list.",
    "/r4": "Sort in reverse and read the notes on reverse lookups.",
    "/gdal": "GDAL reads raster data.",
    "/urls": "The URL dispatcher maps paths; reverse builds them.",
}
LINKS = {"/r1": {"/gdal", "/urls"}, "/r2": {"/gdal"}}


@pytest.fixture
def index() -> MentionIndex:
    stems = ((url, phrase_key(text)) for url, text in TEXTS.items())
    return MentionIndex(NAMES, stems, LINKS, STOP_STEMS)


def test_counts_pages_that_mention_and_link(index: MentionIndex) -> None:
    # "GDAL" is in r1, r2, r3 (the target's own page does not count); r1 and r2 link it:
    # (2 + 2 * 0.1) / (3 + 2)
    assert index.probability(("gdal",), "/gdal") == (pytest.approx(0.44), 3, 2)
    # "reverse" is in r1, r3, r4 and /urls itself; only r1 links /urls: (1 + 0.2) / (3 + 2)
    assert index.probability(phrase_key("reverse"), "/urls") == (pytest.approx(0.24), 3, 1)
    # a two-word name nobody mentions keeps its prior
    assert index.probability(phrase_key("GDAL library"), "/gdal") == (
        pytest.approx((1 + 0.8) / (1 + 2)),
        1,
        1,
    )


def test_best_mention_per_target_and_exclusions(index: MentionIndex) -> None:
    found = index.mentions_in(phrase_key(TEXTS["/r3"]), exclude={"/r3"})
    assert found == {
        "/gdal": Mention("/gdal", "GDAL", "title", 0.44, 3, 2, "gdal"),
        "/urls": Mention("/urls", "reverse", "known_anchor", 0.24, 3, 1, "revers"),
    }
    # "About" is a name, but no page mentions it; a page never names itself
    assert index.mentions_in(phrase_key(TEXTS["/gdal"]), exclude={"/gdal"}) == {}
    # the multi-word name wins over the one-word one when it is better evidenced
    r2 = index.mentions_in(phrase_key(TEXTS["/r2"]), exclude={"/r2"})
    assert r2["/gdal"].phrase == "GDAL library"
    assert r2["/gdal"].probability == pytest.approx(0.6)


def test_stop_words_and_long_names_are_not_indexed() -> None:
    names = {"/t": [("The", "title"), ("one two three four five", "title")]}
    index = MentionIndex(
        names,
        [("/s", phrase_key("the one two three four five"))],
        {},
        STOP_STEMS,
        MentionConfig(max_words=4),
    )
    assert dict(index.targets) == {}
    assert index.mentions_in(phrase_key("the one two three four five")) == {}


def test_one_word_anchor_only_when_the_site_links_it() -> None:
    src = SourceText("Install GDAL first.", [(0, 0, 19, "paragraph")])
    vague = TargetProfile("/gdal", [("GDAL", "title")], {})
    assert exact_mentions(src, vague) == []
    linked = TargetProfile("/gdal", [("GDAL", "title")], {}, frozenset({("gdal",)}))
    [choice] = exact_mentions(src, linked)
    assert (choice.anchor_text, choice.start, choice.end, choice.source_kind) == (
        "GDAL",
        8,
        12,
        "title",
    )


def test_generic_names_are_never_anchors() -> None:
    src = SourceText("Go back home or read more.", [(0, 0, 26, "paragraph")])
    home = TargetProfile(
        "/", [("Home", "title"), ("read more", "known_anchor")], {}, frozenset({("home",)})
    )
    assert exact_mentions(src, home) == []


def test_a_name_of_many_pages_names_none() -> None:
    names = {f"/p{i}": [("Overview", "title")] for i in range(11)}
    names["/gdal"] = [("GDAL overview", "title")]
    texts = [("/s", phrase_key("An overview of the GDAL overview page."))]
    index = MentionIndex(names, texts, {}, STOP_STEMS, MentionConfig(max_targets=10))
    assert ("overview",) not in index.targets
    assert list(index.mentions_in(texts[0][1])) == ["/gdal"]


def test_equal_evidence_picks_the_longest_name_on_every_run() -> None:
    # nobody mentions or links either name elsewhere: both keep the prior of a multi-word name
    names = {"/p": [("Content pruning", "title"), ("Content pruning approach", "h1")]}
    index = MentionIndex(names, [], {}, STOP_STEMS)
    found = index.mentions_in(phrase_key("a content pruning approach works"))
    assert found["/p"].phrase == "Content pruning approach"
    assert found["/p"].probability == pytest.approx(0.4)


def test_stored_counts_give_the_same_evidence_without_recounting(index: MentionIndex) -> None:
    frame = index.frame()
    rows = {(r["name_key"], r["target_url"]): r for r in frame.to_dicts()}
    assert rows[("gdal", "/gdal")] == {
        "name_key": "gdal",
        "target_url": "/gdal",
        "phrase": "GDAL",
        "kind": "title",
        "mentioned_by": 4,  # r1, r2, r3 and /gdal itself
        "linked_by": 2,
        "self_mention": True,
    }
    assert rows[("revers", "/urls")]["linked_by"] == 1
    dispatcher = rows[("url dispatcher", "/urls")]
    assert (dispatcher["mentioned_by"], dispatcher["linked_by"]) == (2, 1)
    assert ("about", "/about") not in rows  # a stopword names nothing
    stored = MentionIndex.from_frame(frame)
    for key, target in [(("gdal",), "/gdal"), (phrase_key("reverse"), "/urls")]:
        assert stored.probability(key, target) == index.probability(key, target)
    for url, text in TEXTS.items():
        stems = phrase_key(text)
        assert stored.mentions_in(stems, exclude={url}) == index.mentions_in(stems, exclude={url})


def test_a_page_counted_out_leaves_the_counts_of_a_site_without_it(index: MentionIndex) -> None:
    index.count_page("/r1", phrase_key(TEXTS["/r1"]), LINKS["/r1"], sign=-1)
    without = MentionIndex(
        NAMES, ((u, phrase_key(t)) for u, t in TEXTS.items() if u != "/r1"), LINKS, STOP_STEMS
    )
    assert (
        index.frame()
        .sort("name_key", "target_url")
        .equals(without.frame().sort("name_key", "target_url"))
    )
    # "GDAL": r2 and r3 mention it, r2 links it
    assert index.probability(("gdal",), "/gdal") == (pytest.approx(1.2 / 4), 2, 1)
    assert (("gdal",), "/gdal") in index.self_mentions
    index.count_page("/gdal", phrase_key(TEXTS["/gdal"]), set(), sign=-1)
    assert (("gdal",), "/gdal") not in index.self_mentions


def _every_key_in(index: MentionIndex, stems: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Every window of every length that is a name key (the definition keys_in speeds up)."""
    return {
        stems[i:j]
        for i in range(len(stems))
        for j in range(i + 1, len(stems) + 1)
        if stems[i:j] in index.targets
    }


def test_keys_in_finds_every_name_key_of_the_text() -> None:
    names = {
        "/a": [("alpha", "title"), ("alpha beta gamma", "h1")],
        "/b": [("alpha beta delta epsilon", "title"), ("beta", "known_anchor")],
        "/c": [("gamma delta", "title"), ("delta epsilon zeta eta", "h1")],
    }
    index = MentionIndex(names, (), {})
    assert index.openings == {("alpha", "beta"), ("gamma", "delta"), ("delta", "epsilon")}
    texts = [
        "alpha beta gamma delta epsilon zeta eta",
        "alpha beta",  # opens two longer names, ends before either is whole
        "beta alpha beta delta epsilon alpha",
        "delta epsilon zeta",  # a longer name cut by the end of the text
        "gamma delta alpha beta gamma gamma delta",
        "",
    ]
    found = [index.keys_in(tuple(t.split())) for t in texts]
    assert found == [_every_key_in(index, tuple(t.split())) for t in texts]
    assert found[1] == {("alpha",), ("beta",)} and found[3] == set()
    assert ("alpha", "beta", "delta", "epsilon") in found[2]
    stored = MentionIndex.from_frame(index.frame())
    assert stored.openings == index.openings
    assert [stored.keys_in(tuple(t.split())) for t in texts] == found
