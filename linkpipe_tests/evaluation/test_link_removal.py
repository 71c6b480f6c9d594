"""Link removal, metrics and baselines of the link-recovery evaluation."""

from pathlib import Path

import pytest

from linkpipe.evaluation.baselines import (
    cocitation_baseline,
    site_title_suffix,
    tfidf_baseline,
    title_mentions,
    title_phrase,
    title_tfidf_baseline,
)
from linkpipe.evaluation.link_removal import (
    RemovedLink,
    content_link_pairs,
    ground_truth,
    html_pages,
    path_to_url,
    remove_links,
    resolve_href,
    scan_links,
    url_to_path,
)
from linkpipe.evaluation.metrics import content_words, evaluate_rankings, recall_ceiling

INDEX = (
    b"<!DOCTYPE html>\n<html><head><title>Home</title><!-- caf\xe9 in latin-1 --></head><body>\n"
    b'<header><a href="/">Fruit shop</a></header>\n'
    b'<nav><a href="a.html">Apples</a></nav>\n'
    b'<div class="navheader"><a accesskey="n" href="b/">Bananas</a></div>\n'
    b'<main><p>We grow <a href="a.html" class="x">red <b>apples</b></a> and\n'
    b'<a href="b/">bananas</a>; see <a href="https://example.org/">Example</a>,\n'
    b'<a href="#top">top</a>, <a href="a.html">here</a> and '
    b'<a href="b/index.html"><img src="b.png" alt="B"></a>.</p>\n'
    b'<p>Caf\xc3\xa9 <a href="c%20d.html">caf&eacute; menu</a> [<a href="a.html">1</a>]</p>\n'
    b"</main>\n"
    b'<div class="sidebar"><a href="a.html">Side apples</a></div>\n'
    b'<footer><a href="a.html">Apples again</a></footer>\n</body></html>\n'
)
INDEX_AFTER = (
    b"<!DOCTYPE html>\n<html><head><title>Home</title><!-- caf\xe9 in latin-1 --></head><body>\n"
    b'<header><a href="/">Fruit shop</a></header>\n'
    b'<nav><a href="a.html">Apples</a></nav>\n'
    b'<div class="navheader"><a accesskey="n" href="b/">Bananas</a></div>\n'
    b"<main><p>We grow red <b>apples</b> and\n"
    b'bananas; see <a href="https://example.org/">Example</a>,\n'
    b'<a href="#top">top</a>, <a href="a.html">here</a> and '
    b'<a href="b/index.html"><img src="b.png" alt="B"></a>.</p>\n'
    b'<p>Caf\xc3\xa9 caf&eacute; menu [<a href="a.html">1</a>]</p>\n'
    b"</main>\n"
    b'<div class="sidebar"><a href="a.html">Side apples</a></div>\n'
    b'<footer><a href="a.html">Apples again</a></footer>\n</body></html>\n'
)
A_PAGE = (
    b"<html><body><p>Bananas are <a href='b/index.html'>yellow fruit</a>.\n"
    b'<a href="index.html">Home page</a></p>\n'
    b'<aside><a href="b/">Side</a></aside>\n'
    b'<div role="navigation"><a href="index.html">Start</a></div></body></html>\n'
)
B_PAGE = (
    b'<html><body><p>Back to <a href="../a.html#x">the apple page</a> or\n'
    b'<a href="/index.html?q=1">the shop</a>. <a href="index.html">Self</a></p></body></html>\n'
)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "b").mkdir()
    (tmp_path / "index.html").write_bytes(INDEX)
    (tmp_path / "a.html").write_bytes(A_PAGE)
    (tmp_path / "b" / "index.html").write_bytes(B_PAGE)
    (tmp_path / "c d.html").write_bytes(b"<html><body><p>Menu.</p></body></html>")
    (tmp_path / "b.png").write_bytes(b"\x89PNG")
    return tmp_path


def test_hrefs_and_urls_map_to_page_paths():
    pages = {"index.html", "a.html", "b/index.html", "c d.html"}
    assert resolve_href("b/index.html", "../a.html#x", pages) == "a.html"
    assert resolve_href("a.html", "b/", pages) == "b/index.html"
    assert resolve_href("a.html", "b", pages) == "b/index.html"
    assert resolve_href("a.html", "/", pages) == "index.html"
    assert resolve_href("a.html", "__BASE_URL__/b/", pages) == "b/index.html"
    assert resolve_href("index.html", "c%20d.html?x=1", pages) == "c d.html"
    for href in ("#top", "https://example.org/a.html", "//cdn/a.html", "mailto:x@y", "../../x"):
        assert resolve_href("a.html", href, pages) is None
    assert resolve_href("a.html", "missing.html", pages) is None
    base = "http://127.0.0.1:8000"
    assert url_to_path(base + "/", base, pages) == "index.html"
    assert url_to_path(base + "/b/", base, pages) == "b/index.html"
    assert url_to_path(base + "/b/index.html", base, pages) == "b/index.html"
    assert url_to_path(base + "/c%20d.html", base, pages) == "c d.html"
    assert url_to_path("http://other/a.html", base, pages) is None
    assert path_to_url("b/index.html", base) == base + "/b/"
    assert path_to_url("index.html", base + "/") == base + "/"
    assert path_to_url("c d.html", base) == base + "/c%20d.html"


def test_scan_finds_content_links_with_exact_offsets(site):
    text = (site / "index.html").read_bytes().decode("utf-8", "surrogateescape")
    links = scan_links(text, "index.html", html_pages(site))
    content = [link for link in links if link.in_content]
    assert [(link.target, link.text) for link in content] == [
        ("a.html", "red apples"),
        ("b/index.html", "bananas"),
        ("c d.html", "café menu"),
    ]
    first = content[0]
    assert text[first.start : first.end] == '<a href="a.html" class="x">red <b>apples</b></a>'
    assert text[first.inner_start : first.inner_end] == "red <b>apples</b>"
    left_out = {link.text for link in links if not link.in_content}
    assert left_out == {
        "Fruit shop", "Apples", "Bananas", "Example", "top", "here", "", "1", "Side apples",
        "Apples again",
    }  # fmt: skip


def test_index_tables_and_content_ids_are_classified_by_name():
    pages = {"a.html", "b.html"}
    html = (
        '<div class="indexdiv"><dl><dt><a href="a.html">Apples, sorting</a></dt></dl></div>'
        '<div id="hd"><a href="a.html">Site name</a></div>'
        '<div class="section" id="s-host-header-poisoning"><p>See <a href="a.html">apples</a>.</p>'
        '<div id="topics-pagination"><p><a href="a.html#x">Paginator</a></p></div></div>'
    )
    links = scan_links(html, "b.html", pages)
    assert [(link.text, link.in_content) for link in links] == [
        ("Apples, sorting", False),
        ("Site name", False),
        ("apples", True),
        ("Paginator", True),
    ]


def test_remove_every_content_link_keeps_text_and_every_other_byte(site):
    before = content_link_pairs(site)
    assert before == {
        ("a.html", "b/index.html"),
        ("a.html", "index.html"),
        ("b/index.html", "a.html"),
        ("b/index.html", "index.html"),
        ("index.html", "a.html"),
        ("index.html", "b/index.html"),
        ("index.html", "c d.html"),
    }
    removed = remove_links(site, 1.0, seed=0)
    assert removed == [
        RemovedLink("a.html", "b/index.html", "yellow fruit"),
        RemovedLink("a.html", "index.html", "Home page"),
        RemovedLink("b/index.html", "a.html", "the apple page"),
        RemovedLink("b/index.html", "index.html", "the shop"),
        RemovedLink("index.html", "a.html", "red apples"),
        RemovedLink("index.html", "b/index.html", "bananas"),
        RemovedLink("index.html", "c d.html", "café menu"),
    ]
    assert (site / "index.html").read_bytes() == INDEX_AFTER
    assert (site / "a.html").read_bytes() == (
        b"<html><body><p>Bananas are yellow fruit.\nHome page</p>\n"
        b'<aside><a href="b/">Side</a></aside>\n'
        b'<div role="navigation"><a href="index.html">Start</a></div></body></html>\n'
    )
    assert (site / "b" / "index.html").read_bytes() == (
        b"<html><body><p>Back to the apple page or\n"
        b'the shop. <a href="index.html">Self</a></p></body></html>\n'
    )
    assert content_link_pairs(site) == set()


def test_removal_is_seeded_and_takes_the_share_of_pairs(tmp_path_factory, site):
    runs, pages = [], sorted(html_pages(site))
    for name in ("one", "two"):
        copy = tmp_path_factory.mktemp(name)
        for page in pages:
            (copy / page).parent.mkdir(parents=True, exist_ok=True)
            (copy / page).write_bytes((site / page).read_bytes())
        runs.append(remove_links(copy, 0.3, seed=7))
    assert runs[0] == runs[1]
    assert len({(r.source, r.target) for r in runs[0]}) == round(0.3 * 7)
    links = remove_links(site, 0.5, seed=1, unit="link")
    assert len(links) == round(0.5 * 7)
    with pytest.raises(ValueError):
        remove_links(site, 0.5, seed=1, unit="word")


def test_ground_truth_drops_pairs_still_linked_or_outside_the_pages():
    removed = [
        RemovedLink("s", "t", "Red apples"),
        RemovedLink("s", "t", "Red apples"),
        RemovedLink("s", "t", "apples"),
        RemovedLink("s", "u", "bananas"),
        RemovedLink("s", "gone", "pears"),
    ]
    truth = ground_truth(removed, {("s", "u")}, {"s", "t", "u"})
    assert truth == {("s", "t"): ["Red apples", "apples"]}


def test_metrics_on_hand_made_rankings():
    truth = {("s1", "t1"): ["Red apples"], ("s1", "t2"): ["bananas"], ("s2", "t3"): ["café menu"]}
    still = {("s2", "t9")}
    fillers = [(f"x{i}", None) for i in range(1, 10)]
    rankings = {
        "s1": [("t2", "ripe Bananas"), ("s1", "self"), ("x1", None), ("x2", None), ("x3", None),
               ("t1", "the pears"), ("t2", "again")],
        "s2": [("t9", "nine"), *fillers, ("t3", "café menu")],
        "s3": [("t1", None)],
    }  # fmt: skip
    m = evaluate_rankings(rankings, truth, still)
    assert m["recall@1"] == pytest.approx(1 / 3)
    assert m["recall@5"] == pytest.approx(2 / 3)
    assert m["recall@10"] == pytest.approx(2 / 3)
    assert m["precision@10"] == pytest.approx((2 / 10 + 0 / 10) / 2)
    assert m["precision@1"] == pytest.approx((1 + 0) / 2)  # s1 starts with t2, s2 with a repeat
    assert m["anchor_overlap"] == pytest.approx(0.5)  # "ripe Bananas" yes, "the pears" no
    assert m["repeat_share"] == pytest.approx(1 / 16)  # 5 + 10 + 1 shown, (s2, t9) repeats
    assert (m["pairs"], m["sources"], m["recovered_at_10"], m["suggestions"]) == (3, 2, 2, 16)
    assert evaluate_rankings(rankings, truth, still, with_anchors=False)["anchor_overlap"] is None
    assert evaluate_rankings({}, {}, set())["recall@10"] == 0.0
    assert content_words("Section 2.2, “Rectangle Selections”") == {
        "section",
        "rectangl",
        "selection",
    }


def test_precision_at_1_is_the_share_of_sources_whose_first_suggestion_was_removed():
    truth = {("a", "b"): ["b"], ("a", "c"): ["c"], ("d", "e"): ["e"], ("f", "g"): ["g"]}
    rankings = {
        "a": [("c", "c"), ("b", "b")],  # first is a removed link: 1
        "d": [("a", None), ("e", "e")],  # removed link second: 0 at 1, found at 10
        "f": [("f", "self"), ("g", "g")],  # the source itself is skipped: g is first, 1
        "x": [("y", None)],  # a source without ground truth does not count
    }
    m = evaluate_rankings(rankings, truth, set())
    assert m["precision@1"] == pytest.approx(2 / 3)
    assert m["recall@1"] == pytest.approx(2 / 4) and m["recall@10"] == 1.0
    assert m["precision@10"] == pytest.approx((2 / 10 + 1 / 10 + 1 / 10) / 3)
    assert evaluate_rankings({}, truth, set())["precision@1"] == 0.0


TEXTS = {
    "apple.html": "apples grow on apple trees in orchards",
    "pie.html": "apple pie recipe with apples and sugar",
    "car.html": "cars need fuel and tyres",
    "tyre.html": "tyres for cars wear out",
    "faq.html": "questions about cars. orchards sugar apples pie recipe",
}
TITLES = {
    "apple.html": "1.2. Apple Trees",
    "pie.html": "Apple pie — Recipes",
    "car.html": "Cars",
    "tyre.html": "Tyres | Garage",
    "faq.html": "FAQ",
}


def test_tfidf_baseline_ranks_by_cosine_and_skips_linked_pairs():
    ranked = tfidf_baseline(TEXTS, {("car.html", "tyre.html")})
    assert ranked["apple.html"] == [("pie.html", None), ("faq.html", None)]  # 0.325, 0.268
    assert ranked["car.html"] == [("faq.html", None)]  # tyre.html is linked already
    assert ranked["tyre.html"] == [("car.html", None), ("faq.html", None)]
    assert [t for t, _ in ranked["faq.html"]] == ["pie.html", "apple.html", "tyre.html", "car.html"]
    assert tfidf_baseline(TEXTS, set(), k=1)["faq.html"] == [("pie.html", None)]


def test_title_match_baseline_puts_title_mentions_first():
    assert title_phrase("4.4. Crop") == ("crop",)
    assert title_phrase("How to use sessions — Django 3.2 documentation") == (
        "how",
        "to",
        "use",
        "sessions",
    )
    assert title_phrase("A.1. The") == ()
    ranked = title_tfidf_baseline(TEXTS, TITLES, set())
    # "cars" is car.html's title: first, before the TF-IDF order of the rest
    assert [t for t, _ in ranked["faq.html"]] == ["car.html", "pie.html", "apple.html", "tyre.html"]
    assert [t for t, _ in ranked["tyre.html"]][0] == "car.html"
    assert [t for t, _ in ranked["car.html"]][0] == "tyre.html"
    linked = title_tfidf_baseline(TEXTS, TITLES, {("faq.html", "car.html")})
    assert [t for t, _ in linked["faq.html"]][0] == "pie.html"


def test_title_match_drops_a_parenthesised_suffix_the_site_shares():
    suffix = " (Java SE 17 & JDK 17)"
    titles = {"list.html": "ArrayList" + suffix, "map.html": "HashMap" + suffix,
              "io.html": "Reader" + suffix, "faq.html": "Questions (old)"}  # fmt: skip
    assert site_title_suffix(titles.values()) == suffix
    assert site_title_suffix(["A (x)", "B (x)", "C (y)", "D"]) == ""  # 2 pages: below 3
    assert site_title_suffix(["A (x)", "B (x)", "C (x)"] + ["T"] * 8) == ""  # 3 of 11 < 30 %
    texts = {"list.html": "A resizable list, see HashMap for keys and the Reader for text.",
             "map.html": "Keys map to values; unlike ArrayList it has no order.",
             "io.html": "Reads characters.", "faq.html": "Questions about ArrayList and old maps."}  # fmt: skip
    assert title_mentions(texts, titles) == {
        ("list.html", "map.html"),
        ("list.html", "io.html"),
        ("map.html", "list.html"),
        ("faq.html", "list.html"),
    }  # "Questions (old)" keeps its own suffix: never found


def test_cocitation_baseline():
    links = {"hub": {"a", "b", "c"}, "hub2": {"a", "b"}, "a": {"d"}, "c": {"d"}}
    pages = {"a", "b", "c", "d"}
    ranked = cocitation_baseline(links, pages, {("a", "d")})
    assert ranked == {
        "a": [("b", None), ("c", None)],
        "b": [("a", None), ("c", None)],
        "c": [("a", None), ("b", None)],
        "d": [],
    }
    assert cocitation_baseline(links, pages, {("a", "b")}, k=1)["a"] == [("c", None)]


def test_recall_ceiling_counts_at_most_k_pairs_per_source():
    truth = {("hub", f"t{i}"): ["x"] for i in range(12)} | {("a", "t0"): ["x"], ("b", "t1"): ["x"]}
    assert recall_ceiling(truth, 10) == 12 / 14  # the hub can show 10 of its 12
    assert recall_ceiling(truth, 1) == 3 / 14
    assert recall_ceiling({}, 10) == 0.0
