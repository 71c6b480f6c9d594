"""Exclusion rules, each with its reason."""

from linkpipe.lib.content.indexability import IndexabilityRules, classify_pages, simhash

BODY = "<html><body><main><p>{}</p></main></body></html>"
TEXT = " ".join(f"word{i} topic{i % 7} sentence" for i in range(40))


def page(url, **kw):
    base = {
        "url": url,
        "shard": 0,
        "status": 200,
        "final_url": url,
        "content_type": "text/html",
        "canonical": "",
        "meta_robots": "",
        "x_robots_tag": "",
        "html": BODY.format(url + " " + TEXT),
    }
    base.update(kw)
    return base


def test_each_rule_gives_its_reason():
    pages = [
        page("http://s.test/a/"),
        page("http://s.test/old/", status=301, final_url="http://s.test/a/", html=""),
        page("http://s.test/missing/", status=404),
        page("http://s.test/file.pdf", content_type="application/pdf"),
        page("http://s.test/hidden/", meta_robots="noindex, follow"),
        page("http://s.test/hdr/", x_robots_tag="noindex"),
        page("http://s.test/printable-a/", canonical="http://s.test/a/"),
        page("http://s.test/search/?q=x"),
        page("http://s.test/tag/seo/"),
        page("http://s.test/a/?sort=new"),
        page("http://s.test/thin/", html=BODY.format("just a few words")),
        page("http://s.test/blocked/", robots_disallowed=True, status=0),
        page("http://s.test/copy/", html=BODY.format("http://s.test/a/ " + TEXT + " extra")),
    ]
    rows = {r["url"]: r for r in classify_pages(pages)}
    reasons = {u: r["reason"] for u, r in rows.items()}
    assert reasons == {
        "http://s.test/a/": None,
        "http://s.test/old/": "redirect",
        "http://s.test/missing/": "http_404",
        "http://s.test/file.pdf": "non_html",
        "http://s.test/hidden/": "noindex",
        "http://s.test/hdr/": "noindex",
        "http://s.test/printable-a/": "canonicalised",
        "http://s.test/search/?q=x": "utility",
        "http://s.test/tag/seo/": "listing",
        "http://s.test/a/?sort=new": "parameter_duplicate",
        "http://s.test/thin/": "thin",
        "http://s.test/blocked/": "robots_disallowed",
        "http://s.test/copy/": "near_duplicate",
    }
    assert rows["http://s.test/printable-a/"]["detail"] == "http://s.test/a/"
    assert rows["http://s.test/copy/"]["detail"] == "http://s.test/a/"
    assert rows["http://s.test/a/"]["indexable"] is True


def test_exact_duplicates_keep_the_shallowest_url():
    pages = [
        page("http://s.test/b/long-path/", html=BODY.format(TEXT), depth=3),
        page("http://s.test/b/", html=BODY.format(TEXT), depth=1),
    ]
    rows = {r["url"]: r for r in classify_pages(pages)}
    assert rows["http://s.test/b/"]["reason"] is None
    assert rows["http://s.test/b/long-path/"]["reason"] == "duplicate"


def test_thin_floor_is_configurable():
    rows = classify_pages(
        [page("http://s.test/t/", html=BODY.format("one two three four"))],
        IndexabilityRules(min_words=3),
    )
    assert rows[0]["reason"] is None and rows[0]["word_count"] == 4


def test_simhash_near_texts_are_close():
    a, b = simhash(TEXT), simhash(TEXT + " extra")
    assert bin(a ^ b).count("1") <= 3
    assert bin(a ^ simhash("entirely different words here about cooking pasta")).count("1") > 10


def test_listing_by_link_share_and_canonical_param_variants():
    links = "".join(f'<a href="/p{i}/">Post number {i} title</a> ' for i in range(12))
    listing = "<html><body><main><h1>All posts</h1><p>Latest.</p>" + links + "</main></body></html>"
    pages = [
        page("http://s.test/blog/", html=listing),
        page("http://s.test/guides/"),
        page("http://s.test/guides/?sort=newest", canonical="http://s.test/guides/"),
        page("http://s.test/search/?q=seo", canonical="http://s.test/search/"),
    ]
    rows = {r["url"]: r for r in classify_pages(pages, IndexabilityRules(min_words=10))}
    assert rows["http://s.test/blog/"]["reason"] == "listing"
    assert rows["http://s.test/blog/"]["page_type"] == "listing"
    assert rows["http://s.test/guides/?sort=newest"]["reason"] == "parameter_duplicate"
    assert rows["http://s.test/search/?q=seo"]["reason"] == "utility"
