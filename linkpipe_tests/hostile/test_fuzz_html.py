"""Fuzzing the one page parser, the charset decoder and the main-content extraction with
Hypothesis: generated HTML-ish bytes and structured random HTML trees (nested tags, odd
attribute values, entities, control characters, huge attribute values). No exception may escape,
and what comes back must be consistent: offsets index the text they claim, links carry absolute
http(s) targets."""

from __future__ import annotations

import codecs

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linkpipe.lib.content.extraction import extract_main_content, split_sentences
from linkpipe.lib.html.decoding import decode_body
from linkpipe.lib.html.parse import parse_page

PAGE_URL = "http://site.test/dir/page"
HOSTS = {"site.test"}
POSITIONS = {"content", "navigation", "header", "footer", "aside"}
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # the same examples on every run: a failure is reproducible
    database=None,  # nothing written beside the tests
)

TAGS = [
    "p", "div", "span", "a", "nav", "main", "article", "section", "header", "footer", "aside",
    "h1", "h2", "ul", "li", "table", "tr", "td", "blockquote", "b", "em", "script", "style",
    "title", "form", "button", "area", "map", "template", "svg", "math", "noscript", "iframe",
]  # fmt: skip
VOID_TAGS = ["br", "img", "meta", "link", "base", "hr", "input", "wbr"]
ATTRIBUTES = [
    "href", "rel", "class", "id", "role", "alt", "title", "content", "name", "http-equiv",
    "hreflang", "property", "type", "charset", "aria-label", "style", "onclick",
]  # fmt: skip
ODD_VALUES = [
    "", "#", "#top", "/", "//", "///x", "?", "/a b/", "/a/../../../../b", "http://", "https:",
    "http://[::1", "http://[::1]:99999/", "http://u:p@site.test/x", "http://bücher.test/",
    "HTTP://SITE.TEST/UP", "javascript:alert(1)", "JaVaScRiPt:x", "mailto:a@b.c", "tel:+1",
    "data:text/html,<a href=/x>", "file:///etc/passwd", "ftp://x.test/", "x:y:z", "%zz%",
    "/%00/", "\x00", "\u202e/evil", "/\ud7ff\ue000", "canonical", "nofollow ugc", "navigation",
    "0; url=/next", "5;URL='http://site.test/r'", "refresh", "robots", "noindex, nofollow",
    "application/ld+json", "{\"@type\": [\"Article\"]}", "nav menu sidebar", "footer",
    "&amp;&lt;&#0;&#x110000;&bogus;", "\t\n\r\x0b\x0c", "x" * 5000, "/p/" + "%" * 300,
]  # fmt: skip
TEXTS = [
    "Hello world. Second sentence! Third? Yes.", "e.g. Dr. Who vs. Mr. Smith etc. Fig. 3",
    "&amp; &lt;b&gt; &#65; &#x41; &#0; &#xD800; &#1114112; &nbsp; &bogus; &", "\x00\x01\x1f\x7f",
    "\u200b\u200d\ufeff\u2028\u2029", "  \n\t  ", "<!-- comment -->", "<![CDATA[x]]>",
    "]]>", "<", ">", "</p>", "</a></a></div>", "<a href=", "\"'", "Ünïcödé — “quotes” ’",
    "🙂" * 20, "word " * 300, "A.B.C. D. E.", "...", "?!", "1. 2. 3.",
]  # fmt: skip


def _attribute(name: str, value: str, quote: str) -> str:
    if quote:
        return f" {name}={quote}{value.replace(quote, '')}{quote}"
    return f" {name}={value.replace(' ', '')}" if value else f" {name}"


attributes = st.lists(
    st.builds(
        _attribute,
        st.sampled_from(ATTRIBUTES),
        st.one_of(st.sampled_from(ODD_VALUES), st.text(max_size=40)),
        st.sampled_from(['"', "'", ""]),
    ),
    max_size=4,
).map("".join)
texts = st.one_of(st.sampled_from(TEXTS), st.text(max_size=60))


def _element(tag: str, attrs: str, children: list[str], closed: bool) -> str:
    return f"<{tag}{attrs}>{''.join(children)}" + (f"</{tag}>" if closed else "")


PROSE = [
    "The quick brown fox jumps over the lazy dog near the river bank today.",
    "Internal links help readers find related guides. They also spread link value.",
    "Choose a plan that fits your team; compare prices before you buy anything.",
    "Über die Brücke gehen wir morgen früh — nicht heute.",
]
paragraphs = st.builds(  # prose with a link inside: what main-content extraction keeps
    lambda before, href, anchor, after, tag: (
        f'<{tag}>{before} <a href="{href}">{anchor}</a> {after}</{tag}>'
    ),
    st.sampled_from(PROSE),
    st.one_of(st.sampled_from(ODD_VALUES), st.sampled_from(["/guide/", "/b/?q=1", "x/y"])),
    st.one_of(texts, st.sampled_from(["related guide", "  pricing \n plans ", "&amp; more"])),
    st.one_of(st.sampled_from(PROSE), texts),
    st.sampled_from(["p", "li", "td", "blockquote", "h2", "div"]),
)
html_trees = st.recursive(
    st.one_of(
        texts,
        paragraphs,
        st.builds(lambda tag, attrs: f"<{tag}{attrs}>", st.sampled_from(VOID_TAGS), attributes),
    ),
    lambda children: st.builds(
        _element, st.sampled_from(TAGS), attributes, st.lists(children, max_size=5), st.booleans()
    ),
    max_leaves=40,
)
documents = st.builds(
    lambda head, body, doctype: f"{doctype}<html><head>{head}</head><body>{body}</body></html>",
    st.lists(html_trees, max_size=3).map("".join),
    st.lists(html_trees, min_size=1, max_size=6).map("".join),
    st.sampled_from(["", "<!doctype html>", "<?xml version='1.0' encoding='utf-16'?>"]),
)
html_bytes = st.one_of(
    st.binary(max_size=2000),
    documents.map(lambda text: text.encode("utf-8", "surrogatepass")),
    st.builds(
        lambda text, codec: text.encode(codec, "replace"),
        documents,
        st.sampled_from(["cp1252", "latin-1", "utf-16", "utf-16-be", "shift_jis", "koi8-r"]),
    ),
)
content_types = st.sampled_from(
    [
        "", "text/html", "text/html; charset=utf-8", "text/html; charset=x-no-such-charset",
        "text/html; charset=", "text/html; charset=\"utf-16\"", "text/html;charset=latin1;;",
        "application/octet-stream", "text/html; charset=utf-7", "text/html; charset=unicode",
    ]
)  # fmt: skip


def check_parsed(html: str) -> None:
    """parse_page on ``html``: no exception, and links that make sense."""
    page = parse_page(html, PAGE_URL, HOSTS)
    assert len(page.links) == len(page.hrefs)
    assert page.skipped_links >= 0
    for link in page.links:
        assert link.source_url == PAGE_URL
        assert link.target_url.startswith(("http://", "https://")), link.target_url
        assert link.position in POSITIONS
        assert link.block_id and ":" in link.block_id
        assert link.anchor_text == " ".join(link.anchor_text.split())
    for value in (page.title, page.h1, page.meta_description):
        assert value == " ".join(value.split())
    for target in (page.canonical, page.meta_refresh):
        assert target == "" or target.startswith(("http://", "https://")), target


def check_extracted(html: str) -> None:
    """extract_main_content on ``html``: no exception, and every offset indexes its text."""
    content = extract_main_content(html, PAGE_URL, fast=True)
    text = content.text
    assert bool(text) != bool(content.error), (text[:80], content.error)
    previous_end = 0
    for block in content.blocks:
        assert previous_end <= block.start < block.end <= len(text)
        assert text[block.start : block.end].strip() == text[block.start : block.end]
        previous_end = block.end
    for sentence in content.sentences:
        block = content.blocks[sentence.paragraph_idx]
        assert block.start <= sentence.start < sentence.end <= block.end
        assert text[sentence.start : sentence.end] == sentence.text
        assert sentence.block_kind == block.kind
    for link in content.links:
        assert 0 <= link.start < link.end <= len(text)
        assert text[link.start : link.end] == link.anchor_text
        assert any(b.start <= link.start and link.end <= b.end for b in content.blocks)


@FUZZ
@given(body=html_bytes, content_type=content_types)
def test_decoding_any_bytes_gives_text_and_a_known_charset(body: bytes, content_type: str) -> None:
    text, charset = decode_body(body, content_type)
    assert isinstance(text, str)
    codecs.lookup(charset)  # a charset Python knows (raises LookupError otherwise)
    if body.isascii() and b"\x00" not in body and not content_type.endswith(('16"', "unicode")):
        assert text == body.decode("ascii") or charset.startswith(("utf-16", "utf-32", "utf-7"))


@FUZZ
@given(html=documents)
def test_parsing_random_trees_gives_consistent_links(html: str) -> None:
    check_parsed(html)


@FUZZ
@given(body=html_bytes, content_type=content_types)
def test_parsing_decoded_random_bytes(body: bytes, content_type: str) -> None:
    html, _ = decode_body(body, content_type)
    check_parsed(html)


@settings(FUZZ, max_examples=40)
@given(html=documents)
def test_extracting_random_trees_gives_offsets_inside_the_text(html: str) -> None:
    check_extracted(html)


@settings(FUZZ, max_examples=25)
@given(body=st.binary(max_size=3000))
def test_extracting_random_bytes_never_raises(body: bytes) -> None:
    check_extracted(body.decode("utf-8", "replace"))


@FUZZ
@given(text=st.one_of(st.sampled_from(TEXTS), st.text(max_size=300)))
def test_sentences_cover_only_their_block(text: str) -> None:
    spans = split_sentences(text)
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end <= len(text)
        assert text[start:end].strip()
        previous_end = end


def test_a_huge_attribute_and_deep_nesting_parse_and_extract() -> None:
    """Shapes too big for generated examples: a 2 MB attribute, 20,000 nested elements."""
    huge = f'<html><body><p><a href="/{"x" * 2_000_000}" title="{"&amp;" * 100_000}">long</a></p>'
    deep = "<html><body>" + "<div><span>" * 10_000 + "deep text here." + "</span></div>" * 10_000
    for html in (huge, deep, "<a href=/x>" * 5_000):
        check_parsed(html)
        check_extracted(html)
