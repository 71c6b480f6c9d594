"""Thin, listing and near-duplicate thresholds measured on the site: short reference pages stay
targets, a blog's stubs do not, a number in the settings wins, and every threshold used is
recorded with how it was found. Pages are real prose (the demo site's articles) in full HTML
pages with navigation, header and footer."""

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from linkpipe.lib.content.indexability import IndexabilityRules, classify_site
from linkpipe.lib.content.main_area import WORD_RE, quick_text
from linkpipe.lib.content.site_thresholds import (
    Threshold,
    listing_threshold,
    near_duplicate_threshold,
    nearest_distances,
)
from linkpipe.lib.run_config import indexability_rules

DEMO = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
SITE = "http://site.test"
# 17 short reference pages of 32, 35, ... 80 words: median 56 (the real site)
REFERENCE_WORDS = [32 + 3 * i for i in range(17)]
STUBS = [  # four drafts published too early, 38 words each (40 with their title)
    "Quick note while the full write up is being finished today: we moved the editorial "
    "calendar to a shared spreadsheet so every writer sees deadlines, owners and status at a "
    "glance. More details and the template follow soon.",
    "Placeholder for the webinar recording. The session covered how we plan quarterly content "
    "themes, which metrics we report to clients and how we decide what to refresh. Slides and "
    "the full video will be posted here very shortly.",
    "We are hiring a technical writer. The role covers documentation for our audit tools, "
    "release notes and the help centre. Full job description, salary range and the way to "
    "apply will be published on this page next week.",
    "Reminder: the office is closed on Friday for the team retreat. Support tickets will be "
    "answered on Monday morning. In urgent cases email the account manager listed on your "
    "contract and we will call you back quickly today.",
]


def demo_articles() -> list[list[str]]:
    """Main-area words of the demo's blog posts and guides (350-750 words each), path order."""
    articles = []
    for path in sorted(DEMO.rglob("*.html")):
        if path.parent.parent.name in ("blog", "guides"):
            words = WORD_RE.findall(quick_text(path.read_text(encoding="utf-8")).text)
            if len(words) > 300:
                articles.append(words)
    return articles


def html_page(title: str, body_html: str) -> str:
    """A whole page as a CMS renders it: header, navigation, main content, footer."""
    nav = "".join(f'<li><a href="/{s}/">{s.title()}</a></li>' for s in ("docs", "blog", "about"))
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f'<header><a href="/">Acme</a><nav><ul>{nav}</ul></nav></header>'
        f"<main>{body_html}</main>"
        "<footer><p>Copyright Acme Ltd. All rights reserved. Privacy and terms.</p></footer>"
        "</body></html>"
    )


def crawled(url: str, html: str, depth: int = 1) -> dict:
    """A crawl_pages row of a 200 HTML page, as the stage reads it."""
    return {
        "url": url,
        "shard": 0,
        "status": 200,
        "final_url": url,
        "content_type": "text/html",
        "canonical": "",
        "meta_robots": "",
        "x_robots_tag": "",
        "depth": depth,
        "html": html,
    }


def text_page(url: str, title: str, words: list[str]) -> dict:
    """A page whose main area is an H1 ``title`` and one paragraph: len(title) + len(words)
    main-area words."""
    return crawled(url, html_page(title, f"<h1>{title}</h1><p>{' '.join(words)}</p>"))


def reference_site() -> list[dict]:
    """17 reference pages of REFERENCE_WORDS words each (two-word H1 included)."""
    articles = demo_articles()
    return [
        text_page(f"{SITE}/ref/option-{i}/", f"Option {i}", articles[i][: n - 2])
        for i, n in enumerate(REFERENCE_WORDS)
    ]


def blog_site() -> list[dict]:
    """The demo's 36 real articles as a blog, and four 40-word stubs."""
    pages = []
    for path in sorted(DEMO.rglob("*.html")):
        section = path.parent.parent.name
        if section in ("blog", "guides") and path.parent.name not in ("page", "archive"):
            url = f"{SITE}/{section}/{path.parent.name}/"
            pages.append(crawled(url, path.read_text(encoding="utf-8")))
    stubs = [
        text_page(f"{SITE}/blog/stub-{i}/", f"Update {i}", stub.split())
        for i, stub in enumerate(STUBS)
    ]
    return pages + stubs


def by_url(rows: list[dict]) -> dict[str, dict]:
    return {r["url"]: r for r in rows}


def rows_of(thresholds: list[Threshold]) -> list[tuple]:
    return [(t.rule, t.page_type, t.value, t.mode, t.basis) for t in thresholds]


def test_short_reference_pages_stay_targets():
    pages = reference_site()
    site = classify_site(pages)
    assert [r["word_count"] for r in site.rows] == REFERENCE_WORDS
    assert all(r["indexable"] for r in site.rows)
    thin = site.thresholds[1]
    assert (thin.rule, thin.value, thin.mode, thin.median, thin.pages) == (
        "thin",
        28,
        "auto",
        56,
        17,
    )
    assert thin.basis == "0.5 x median 56 words" and thin.page_type is None
    # the fixed rule of before excluded every page under 60 words: 10 of the 17
    fixed = classify_site(pages, IndexabilityRules(min_words=60)).rows
    assert Counter(r["reason"] for r in fixed) == {"thin": 10, None: 7}
    assert by_url(fixed)[f"{SITE}/ref/option-0/"]["detail"] == (
        "32 words, site threshold 60 (set in config)"
    )


def test_a_page_of_a_few_words_is_thin_on_any_site():
    pages = reference_site() + [
        text_page(f"{SITE}/ref/moved/", "Moved", "see the new index".split())
    ]
    rows = by_url(classify_site(pages).rows)
    assert rows[f"{SITE}/ref/moved/"]["reason"] == "thin"
    # 18 pages: 5, 32, ..., 53 | 56, ... 80: median 54.5, half of it 27
    assert (
        rows[f"{SITE}/ref/moved/"]["detail"]
        == "5 words, site threshold 27 (0.5 x median 54.5 words)"
    )
    assert sum(r["indexable"] for r in rows.values()) == 17


def test_a_blogs_stubs_are_still_thin():
    site = classify_site(blog_site())
    reasons = Counter(r["reason"] for r in site.rows)
    assert reasons == {None: 36, "thin": 4}
    stub = by_url(site.rows)[f"{SITE}/blog/stub-0/"]
    assert stub["word_count"] == 40
    thin = {t.page_type: t for t in site.thresholds if t.rule == "thin"}
    blog_median = thin["blog"].median
    assert stub["detail"] == (
        f"40 words, blog threshold 60 (cap 60, below 0.5 x median {blog_median:g} words)"
    )
    assert set(thin) == {None, "blog", "guide"} and blog_median > 350
    assert all(t.value == 60 and t.mode == "auto" for t in thin.values())


def test_short_glossary_entries_beside_long_articles_keep_their_own_threshold():
    """A site-wide median (articles) would call every glossary entry thin; its own does not."""
    glossary = []
    for i, words in enumerate(demo_articles()[:12]):
        glossary.append(text_page(f"{SITE}/glossary/term-{i}/", f"Term {i}", words[: 22 + 2 * i]))
    site = classify_site(blog_site() + glossary)
    rows = by_url(site.rows)
    assert all(rows[p["url"]]["indexable"] for p in glossary)  # 24 to 46 words
    assert all(rows[f"{SITE}/blog/stub-{i}/"]["reason"] == "thin" for i in range(4))
    thin = {t.page_type: t for t in site.thresholds if t.rule == "thin"}
    assert thin["glossary"].basis == "floor 20, above 0.5 x median 35 words"
    assert thin["glossary"].value == 20 and thin["glossary"].pages == 12
    assert thin[None].value == 60  # the site's, for page types without their own


def test_a_number_in_the_settings_wins():
    rules = indexability_rules({"indexability": {"min_words": 30}})
    site = classify_site(blog_site(), rules)
    assert all(r["indexable"] for r in site.rows)  # the 40-word stubs pass a 30-word floor
    assert rows_of(site.thresholds)[1] == ("thin", None, 30, "config", "set in config")
    strict = indexability_rules({"indexability": {"min_words": 80, "near_duplicate_max_bits": 0}})
    site = classify_site(reference_site(), strict)
    assert Counter(r["reason"] for r in site.rows) == {"thin": 16, None: 1}
    assert by_url(site.rows)[f"{SITE}/ref/option-3/"]["detail"] == (
        "41 words, site threshold 80 (set in config)"
    )
    assert rows_of(site.thresholds)[-1] == ("near_duplicate", None, 0, "config", "set in config")


def test_a_tiny_site_uses_the_fixed_defaults_and_says_so():
    words = demo_articles()[0]
    pages = [
        text_page(f"{SITE}/", "Welcome", words[:198]),
        text_page(f"{SITE}/contact/", "Contact", words[200:229]),
    ]
    site = classify_site(pages)
    assert by_url(site.rows)[f"{SITE}/contact/"]["detail"] == (
        "30 words, site threshold 60 (default: 2 pages, fewer than 10 to measure)"
    )
    assert rows_of(site.thresholds) == [
        ("listing", None, 0.5, "default", "default: 1 page, fewer than 10 to measure"),
        ("thin", None, 60, "default", "default: 2 pages, fewer than 10 to measure"),
        ("near_duplicate", None, 3, "default", "default: 1 page, fewer than 10 to measure"),
    ]


@pytest.mark.parametrize("count", [2, 12])
def test_a_site_of_empty_pages_is_thin_with_a_reason(count):
    """A JavaScript application shell: no main-area text on any page."""
    shell = (
        "<!doctype html><html><head><title>App</title></head><body><div id='root'></div>"
        "<script>window.boot({route: location.pathname})</script></body></html>"
    )
    pages = [crawled(f"{SITE}/app/{i}/", shell) for i in range(count)]
    site = classify_site(pages)
    assert {r["reason"] for r in site.rows} == {"thin"}
    details = {r["detail"] for r in site.rows}
    if count == 2:
        assert details == {
            "0 words, site threshold 60 (default: 2 pages, fewer than 10 to measure)"
        }
    else:
        assert details == {"0 words, site threshold 20 (floor 20, above 0.5 x median 0 words)"}
    assert [(t.rule, t.mode, t.pages) for t in site.thresholds] == [
        ("listing", "default", 0),
        ("thin", "default" if count == 2 else "auto", count),
        ("near_duplicate", "default", 0),
    ]


def see_also_page(i: int, words: list[str], links: int) -> dict:
    """A reference page whose main area ends with a "See also" list of ``links`` links."""
    items = "".join(
        f'<li><a href="/ref/option-{(i + k) % 20}/">option {(i + k) % 20} flags</a></li>'
        for k in range(1, links + 1)
    )
    body = f"<h1>Option {i}</h1><p>{' '.join(words)}</p><h2>See also</h2><ul>{items}</ul>"
    return crawled(f"{SITE}/ref/option-{i}/", html_page(f"Option {i}", body))


def test_link_dense_reference_pages_are_not_listings_but_an_index_is():
    articles = demo_articles()
    pages = [see_also_page(i, articles[i][: 18 + i % 8], 8 + i % 3) for i in range(20)]
    index_items = "".join(f'<li><a href="/ref/option-{i}/">Option {i}</a></li>' for i in range(40))
    index = f"<h1>All options</h1><p>Every option.</p><ul>{index_items}</ul>"
    pages.append(crawled(f"{SITE}/all-options.html", html_page("All options", index)))
    site = classify_site(pages)
    rows = by_url(site.rows)
    listing = site.thresholds[0]
    assert (listing.mode, listing.value, listing.pages) == ("auto", 0.756, 21)
    assert listing.basis == "median 46% + 30 points" and 0.45 < listing.median < 0.46
    assert all(rows[p["url"]]["indexable"] for p in pages[:20])
    assert rows[f"{SITE}/all-options.html"]["reason"] == "listing"
    assert rows[f"{SITE}/all-options.html"]["detail"] == (
        "84% of the main text in 40 links, site threshold 76% (median 46% + 30 points)"
    )
    fixed = classify_site(pages, IndexabilityRules(listing_link_share=0.5)).rows
    # the fixed 50 % made the four most linked reference pages listings too
    assert Counter(r["reason"] for r in fixed) == {None: 16, "listing": 5}
    kept = by_url(classify_site(pages, IndexabilityRules(excluded_types=("utility",))).rows)
    index_row = kept[f"{SITE}/all-options.html"]  # typed a listing, kept where not excluded
    assert (index_row["page_type"], index_row["reason"], index_row["detail"]) == (
        "listing",
        None,
        "",
    )


def templated_site() -> list[dict]:
    """30 product pages: 25 words of their own and 350 shared words (delivery, returns and
    warranty text repeated inside the main area), and a re-punctuated print copy of one."""
    articles = demo_articles()
    shared = " ".join((articles[2] + articles[34])[:350])
    own = [words[:25] for i, words in enumerate(articles) if i not in (2, 34)][:30]
    pages = [
        crawled(
            f"{SITE}/products/p{i}/",
            html_page(f"Product {i}", f"<p>{' '.join(words)}</p><p>{shared}</p>"),
        )
        for i, words in enumerate(own)
    ]
    print_copy = f"<p>{' '.join(own[2]).replace(' ', ', ', 3)}!</p><p>{shared}</p>"
    pages.append(crawled(f"{SITE}/print/p2/", html_page("Product 2", print_copy), depth=3))
    return pages


def test_template_siblings_stay_targets_while_a_copy_is_a_near_duplicate():
    pages = templated_site()
    site = classify_site(pages)
    near = site.thresholds[-1]
    assert (near.value, near.mode, near.median, near.pages) == (0, "auto", 3, 31)
    assert near.basis == "floor 0, above median nearest distance 3 bits - 2 x sqrt(3)"
    assert Counter(r["reason"] for r in site.rows) == {None: 30, "near_duplicate": 1}
    assert by_url(site.rows)[f"{SITE}/print/p2/"]["detail"] == (
        f"{SITE}/products/p2/, 0 bits apart; site threshold 0 ({near.basis})"
    )
    # the fixed 3 bits excluded template siblings that are separate products
    fixed = Counter(
        r["reason"] for r in classify_site(pages, IndexabilityRules(near_duplicate_max_bits=3)).rows
    )
    assert fixed["near_duplicate"] == 8


def test_an_ordinary_site_keeps_three_bits_and_catches_a_one_word_edit():
    pages = blog_site()[:36]
    original = pages[5]
    edited = original["html"].replace("</main>", "<p>Updated.</p></main>")
    pages.append(crawled(original["url"] + "amp/", edited, depth=4))
    site = classify_site(pages)
    near = site.thresholds[-1]
    assert (near.value, near.mode) == (3, "auto") and near.median >= 20
    assert near.basis == (
        f"cap 3, below median nearest distance {near.median:g} bits - 2 x sqrt({near.median:g})"
    )
    copy = by_url(site.rows)[original["url"] + "amp/"]
    assert copy["reason"] == "near_duplicate" and copy["detail"].startswith(original["url"] + ", ")


def test_nearest_distances_are_those_of_a_full_comparison():
    rng = np.random.default_rng(3)
    prints = rng.integers(0, 2**63, size=300, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    prints[7] = prints[100] ^ np.uint64(0b101)  # two fingerprints 2 bits apart
    full = [
        min(bin(int(a) ^ int(b)).count("1") for j, b in enumerate(prints) if j != i)
        for i, a in enumerate(prints)
    ]
    assert nearest_distances(prints, sample=1000).tolist() == full
    picks = np.unique(np.linspace(0, 299, 50).astype(np.int64))
    assert nearest_distances(prints, sample=50).tolist() == [full[i] for i in picks]
    assert nearest_distances(prints[:1]).tolist() == []


def test_thresholds_are_bounded_by_the_fixed_rules():
    assert listing_threshold(np.full(40, 0.8), None, 10).value == 0.9
    assert (
        listing_threshold(np.full(40, 0.8), None, 10).basis
        == "cap 90%, below median 80% + 30 points"
    )
    assert (
        listing_threshold(np.zeros(40), None, 10).basis == "floor 50%, above median 0% + 30 points"
    )
    same = np.zeros(40, dtype=np.uint64)  # forty identical fingerprints: 0 bits apart
    assert near_duplicate_threshold(same, None, 10).value == 0
    assert near_duplicate_threshold(same, 5, 10).basis == "set in config"
