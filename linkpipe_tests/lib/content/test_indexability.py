"""Exclusion rules, each with its reason."""

import hashlib
import random
from collections import Counter
from pathlib import Path

from linkpipe.lib.content import main_area
from linkpipe.lib.content.indexability import IndexabilityRules, classify_pages
from linkpipe.lib.content.main_area import WORD_RE, simhash

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
    assert rows["http://s.test/copy/"]["detail"] == (
        "http://s.test/a/, 1 bit apart; site threshold 3 (default: 2 pages, fewer than 10 to measure)"
    )
    assert rows["http://s.test/thin/"]["detail"] == (
        "4 words, site threshold 60 (default: 4 pages, fewer than 10 to measure)"
    )
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


def reference_simhash(text: str, shingle: int = 3) -> int:
    """The pure-Python SimHash linkpipe used before it was vectorised (bit by bit)."""
    words = [w.lower() for w in WORD_RE.findall(text)]
    if not words:
        return 0
    weights = [0] * 64
    grams = max(1, len(words) - shingle + 1)
    for i in range(grams):
        gram = " ".join(words[i : i + shingle])
        h = int.from_bytes(hashlib.blake2b(gram.encode(), digest_size=8).digest(), "big")
        for bit in range(64):
            weights[bit] += 1 if (h >> bit) & 1 else -1
    return sum(1 << bit for bit in range(64) if weights[bit] > 0)


def test_vectorised_simhash_gives_the_reference_fingerprints():
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(40)] + ["Ärger", "naïve", "日本語", "x_y", "42"]
    texts = ["", "   ", "one", "one two", "One two three", "a b c d", TEXT, TEXT + " extra"]
    texts += [" ".join(rng.choice(vocabulary) for _ in range(n)) for n in range(1, 60)]
    texts += [" ".join(rng.choice(vocabulary[:3]) for _ in range(n)) for n in (2, 4, 6, 8, 500)]
    for text in texts:
        assert simhash(text) == reference_simhash(text), text
    assert simhash(TEXT) != 0


def demo_pages() -> list[dict]:
    """Every page of the bundled demo site as a crawled 200 page."""
    root = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
    pages = []
    for path in sorted(root.rglob("*.html")):
        url = "http://demo.test/" + str(path.parent.relative_to(root)).strip(".") + "/"
        pages.append(page(url.replace("//", "/").replace(":/", "://"), html=path.read_text()))
    return pages


def test_classifications_are_those_of_the_reference_simhash(monkeypatch):
    pages = demo_pages()
    # Near and exact twins of real pages, a few words apart, so the SimHash rule has work.
    for n, twin in enumerate(pages[5:25:4]):
        extra = " ".join(f"added{k}" for k in range(n))
        html = twin["html"].replace("</main>", f"<p>{extra}</p></main>")
        pages.append(page(twin["url"] + f"copy{n}/", html=html, depth=4))
    rules = IndexabilityRules(min_words=30)
    got = classify_pages([dict(p) for p in pages], rules)
    monkeypatch.setattr(
        main_area, "simhash_of_words", lambda words: reference_simhash(" ".join(words))
    )
    assert got == classify_pages([dict(p) for p in pages], rules)
    reasons = Counter(r["reason"] for r in got)
    assert reasons["near_duplicate"] + reasons["duplicate"] >= 4 and reasons[None] > 40
