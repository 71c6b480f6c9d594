"""Single-pass page parsing: metadata, links with positions, blocks; body decoding."""

from __future__ import annotations

import codecs
import gzip

import pytest

from linkpipe.lib.html.decoding import decode_body
from linkpipe.lib.html.parse import parse_page

PAGE = """<!doctype html><html><head>
<title>  Hello
  world </title>
<base href="/docs/">
<meta name="Robots" content="NOINDEX, Follow">
<meta name="description" content="  A   page  ">
<meta property="og:type" content="article">
<link rel="canonical" href="/canon/?utm_source=x#top">
<link rel="alternate" hreflang="de-DE" href="/de/">
<link rel="alternate" hreflang="x-default" href="http://ex.com/">
<script type="application/ld+json">
{"@context": "https://schema.org", "@graph": [{"@type": "WebSite"}, {"@type": "Product"}]}
</script>
</head><body>
<header><a href="/">Logo</a><nav><a href="/a">A</a></nav></header>
<div class="box"><a href="one">One</a> <a href="two">Two</a></div>
<article><header><a href="/cat/">Category</a></header>
<h1>The <em>main</em> title</h1>
<p>Read <a href="http://other.com/x#y" rel="NoFollow Sponsored">the   other
site</a> or <a href="mailto:x@y.z">mail</a>, <a href="javascript:void(0)">js</a>,
<a href="#top">top</a>, <a href="">self</a>, <a href="/img"><img src="x.png" alt="An image"></a>.</p>
<footer><a href="/author">Author</a></footer></article>
<aside><a href="/side">Side</a></aside>
<div role="navigation"><a href="/rn">Role nav</a></div>
<footer><a href="/privacy">Privacy</a><nav><a href="/fnav">Footer nav</a></nav></footer>
<map><area href="/area" alt="Area alt"></map>
</body></html>"""


@pytest.fixture(scope="module")
def parsed():
    return parse_page(PAGE, "http://ex.com/page", {"ex.com"})


def test_metadata(parsed) -> None:
    assert parsed.title == "Hello world"
    assert parsed.h1 == "The main title"
    assert parsed.meta_description == "A page"
    assert parsed.meta_robots == "noindex, follow"
    assert parsed.canonical == "http://ex.com/canon/"
    assert parsed.hreflang == [
        {"lang": "de-de", "url": "http://ex.com/de/"},
        {"lang": "x-default", "url": "http://ex.com/"},
    ]
    assert parsed.page_type == "Product"  # the specific JSON-LD type, not WebSite
    assert parsed.meta_refresh == ""


def test_links_positions_and_flags(parsed) -> None:
    rows = [(link.target_url, link.anchor_text, link.position) for link in parsed.links]
    assert rows == [
        ("http://ex.com/", "Logo", "header"),
        ("http://ex.com/a", "A", "navigation"),
        ("http://ex.com/docs/one", "One", "content"),  # resolved against <base href>
        ("http://ex.com/docs/two", "Two", "content"),
        ("http://ex.com/cat/", "Category", "content"),  # an article's header is not the banner
        ("http://other.com/x", "the other site", "content"),
        ("http://ex.com/img", "An image", "content"),
        ("http://ex.com/author", "Author", "content"),  # nor is an article's footer
        ("http://ex.com/side", "Side", "aside"),
        ("http://ex.com/rn", "Role nav", "navigation"),
        ("http://ex.com/privacy", "Privacy", "footer"),
        ("http://ex.com/fnav", "Footer nav", "navigation"),
        ("http://ex.com/area", "Area alt", "content"),
    ]
    other = parsed.links[5]
    assert (other.internal, other.nofollow, other.rel) == (False, True, "nofollow sponsored")
    image = parsed.links[6]
    assert image.is_image and image.internal and not image.nofollow
    assert parsed.links[12].is_image
    assert parsed.skipped_links == 2  # mailto and javascript; "#top" and "" are not links
    assert all(link.source_url == "http://ex.com/page" for link in parsed.links)


def test_block_ids_group_links_of_one_element(parsed) -> None:
    blocks = [link.block_id for link in parsed.links]
    assert blocks[2] == blocks[3]  # the two menu links share their <div>
    assert blocks[0] != blocks[1] and blocks[5] == blocks[6]  # same paragraph
    again = parse_page(PAGE.replace("Hello", "Bye"), "http://ex.com/other", {"ex.com"})
    assert [link.block_id for link in again.links] == blocks  # same blocks -> same signatures


def test_meta_refresh_and_page_type_from_og() -> None:
    html = '<meta http-equiv="Refresh" content="3; URL=\'/new/\'"><meta property="og:type" content="website">'
    parsed = parse_page(html, "http://ex.com/old/", {"ex.com"})
    assert parsed.meta_refresh == "http://ex.com/new/" and parsed.page_type == "website"
    assert (
        parse_page(
            '<meta http-equiv="refresh" content="30">', "http://ex.com/", {"ex.com"}
        ).meta_refresh
        == ""
    )


@pytest.mark.parametrize(
    "html",
    [
        "",
        "<",
        "<<<>>>",
        "\x00<a href=\x00>x</a>",
        "<a href='http://a.com:99999/'>bad port</a>",
        "<a href='http://[::1/'>bad ipv6</a>",
        "<html><a href=/x><a href=/y>nested</a></a>" * 3,
        "<svg><title>t</title><a href='/s'>s</a></svg>",
        "<script type='application/ld+json'>{not json</script><table><td><a href=/t>t",
        "<div>" * 5000 + "<a href='/deep'>deep</a>",
        "\ud800 lone surrogate <a href='/s'>s</a>",
    ],
)
def test_malformed_html_never_crashes(html: str) -> None:
    parsed = parse_page(html, "http://ex.com/", {"ex.com"})
    assert all(link.target_url.startswith("http") for link in parsed.links)


def test_decode_body_charset_sources() -> None:
    text = "<p>Café – crème brûlée, déjà vu à la française, élève naïve.</p>"
    cp1252 = text.encode("cp1252")
    assert decode_body(cp1252, "text/html; charset=windows-1252") == (text, "windows-1252")
    assert decode_body(b'<meta charset="windows-1252">' + cp1252, "text/html")[1] == "windows-1252"
    meta_equiv = (
        b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">' + cp1252
    )
    assert decode_body(meta_equiv, "")[0].endswith(text)  # latin-1 label means windows-1252
    assert decode_body(cp1252, "text/html") == (text, "windows-1252")  # detected
    assert decode_body(text.encode("utf-8"), "text/html") == (text, "utf-8")
    assert decode_body(b"\xef\xbb\xbf<p>bom</p>", "text/html; charset=latin-1") == (
        "<p>bom</p>",
        "utf-8",
    )
    assert (
        decode_body("日本語のページです。".encode("shift_jis"), "text/html; charset=Shift_JIS")[0]
        == "日本語のページです。"
    )
    assert decode_body(b"abc", "text/html; charset=bogus-charset") == ("abc", "utf-8")
    garbage, charset = decode_body(gzip.compress(b"x" * 100), "")
    assert isinstance(garbage, str) and charset


def test_decode_body_follows_browsers_where_declarations_mislead() -> None:
    text = "<p>Grüße</p>"
    # a <meta> readable as ASCII cannot be UTF-16: the page is UTF-8 (WHATWG)
    utf16_meta = b'<meta charset="utf-16">' + text.encode("utf-8")
    assert decode_body(utf16_meta, "text/html") == ('<meta charset="utf-16">' + text, "utf-8")
    utf32 = codecs.BOM_UTF32_LE + text.encode("utf-32-le")
    assert decode_body(utf32, "text/html; charset=utf-8") == (text, "utf-32")
    utf32_be = codecs.BOM_UTF32_BE + text.encode("utf-32-be")  # w3lib 2.6 reads no UTF-32 mark
    assert decode_body(utf32_be, "text/html; charset=utf-8") == (text, "utf-32")
    assert decode_body(codecs.BOM_UTF16_BE + text.encode("utf-16-be")) == (text, "utf-16")
    xml_decl = b'<?xml version="1.0" encoding="iso-8859-1"?>' + text.encode("cp1252")
    assert decode_body(xml_decl, "application/xhtml+xml")[1] == "windows-1252"
    commented = b'<!-- <meta charset="koi8-r"> -->' + text.encode("utf-8")
    assert decode_body(commented, "text/html") == (
        '<!-- <meta charset="koi8-r"> -->' + text,
        "utf-8",
    )


def test_positions_from_class_and_id_names() -> None:
    """DocBook (GIMP help) and Sphinx (Django docs) mark navigation with class/id names only."""
    html = """<html><body>
    <div class="navheader"><table><tr><td><a href="prev.html">Prev</a></td></tr></table></div>
    <div id="global-nav"><a href="/search/">Search</a></div>
    <div class="sect1"><p>See <a href="filters.html">the filters</a> for details.</p>
      <dl class="toc"><dt><a href="ch1.html">1. Chapter</a></dt></dl></div>
    <div id="sidebar" class="yui-b"><a href="/genindex/">Index</a></div>
    <div class="navfooter"><a href="next.html">Next</a></div>
    <div id="site-footer"><a href="/legal/">Legal</a></div>
    </body></html>"""
    links = parse_page(html, "http://ex.com/doc/page.html", {"ex.com"}).links
    assert [(link.anchor_text, link.position) for link in links] == [
        ("Prev", "navigation"),
        ("Search", "navigation"),
        ("the filters", "content"),
        ("1. Chapter", "navigation"),
        ("Index", "aside"),
        ("Next", "navigation"),
        ("Legal", "footer"),
    ]


def test_heading_slug_ids_are_not_layout_names() -> None:
    """Sphinx ids made from a heading ("s-...-header-injection-...", "s-specifying-widgets") or
    the page path ("ref-forms-widgets") are not layout names; "page-header" is."""
    html = """<html><body>
    <div id="page-header"><a href="/">Home</a></div><div class="yui-g" id="ref-forms-widgets">
    <div class="section" id="s-cve-2021-32052-header-injection-possibility-since-urlvalidator">
      <h2>Header injection</h2>
      <p>On Python 3.9.5+, <a href="../ref/validators.html">URLValidator</a> did not prohibit
      newlines.</p></div>
    <div class="section" id="s-specifying-widgets"><span id="specifying-widgets"></span>
      <h2>Specifying widgets</h2><p>See <a href="fields.html">form fields</a>.</p></div>
    </div></body></html>"""
    links = parse_page(html, "http://ex.com/releases/2.2.22.html", {"ex.com"}).links
    assert [(link.anchor_text, link.position) for link in links] == [
        ("Home", "header"),
        ("URLValidator", "content"),
        ("form fields", "content"),
    ]
