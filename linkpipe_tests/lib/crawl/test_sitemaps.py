"""The one sitemap parser, as the crawler (lenient) and the URL-list importer (strict) use it;
the one writer and reader of the previous crawl's pages."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from linkpipe.lib.crawl import sitemaps
from linkpipe.lib.crawl.config import PreviousPage
from linkpipe.lib.crawl.output import PreviousCrawl, write_previous
from linkpipe.lib.crawl.sitemaps import SitemapError, parse_sitemap, read_sitemap
from linkpipe.lib.html.stored import compress_html
from linkpipe.lib.importers import ImportFormatError, read_url_list

URLSET = b"""\xef\xbb\xbf<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://www.example.com/</loc><lastmod> 2024-05-01 </lastmod></url>
  <url>
    <image:image><image:loc>https://cdn.example.com/a.png</image:loc></image:image>
    <loc>
      https://www.example.com/search?q=a&amp;page=2
    </loc>
  </url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc><![CDATA[https://www.example.com/blog/]]></loc></url>
</urlset>
"""
EXPECTED = [
    ("https://www.example.com/", "2024-05-01", 4),
    ("https://www.example.com/search?q=a&page=2", "", 7),
    ("https://www.example.com/blog/", "", 12),
]


def entries(parsed: sitemaps.Sitemap) -> list[tuple[str, str, int]]:
    return [(e.loc, e.lastmod, e.line) for e in parsed.urls]


def test_crawler_and_importer_read_the_same_urls(tmp_path: Path) -> None:
    """A UTF-8 BOM, namespaces, entities, CDATA, an image <loc> and an entry without <loc>."""
    for body in (URLSET, gzip.compress(URLSET)):
        assert entries(parse_sitemap(body)) == EXPECTED  # the crawler
        assert entries(read_sitemap(body)) == EXPECTED
        path = tmp_path / "sitemap.xml"
        path.write_bytes(body)
        assert read_url_list(path) == [loc for loc, _, _ in EXPECTED]  # the importer


def test_index_children_and_text_lists() -> None:
    index = parse_sitemap(
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sitemap><loc>https://a.example/s1.xml</loc><lastmod>2024-02-02</lastmod></sitemap>"
        b"<sitemap><loc>/s2.xml.gz</loc></sitemap></sitemapindex>"
    )
    assert index.is_index and index.urls == []
    assert [(e.loc, e.lastmod) for e in index.sitemaps] == [
        ("https://a.example/s1.xml", "2024-02-02"),
        ("/s2.xml.gz", ""),
    ]
    text = b"# pages\r\nhttps://a.example/\r\n\r\n  /relative  \rhttp://a.example/b\n"
    assert entries(parse_sitemap(text)) == [
        ("https://a.example/", "", 2),
        ("http://a.example/b", "", 5),
    ]  # the crawler keeps only absolute http(s) lines
    assert [e.loc for e in read_sitemap(text).urls] == [
        "https://a.example/",
        "/relative",
        "http://a.example/b",
    ]  # the importer sees every line, and rejects the relative one with its line number


def test_both_respect_the_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sitemaps, "MAX_SITEMAP_BYTES", 200)
    entry = b"<url><loc>https://a.example/page-%03d</loc></url>\n"
    body = b"<urlset>\n" + b"".join(entry % i for i in range(20)) + b"</urlset>\n"
    assert len(body) > 200
    for data in (body, gzip.compress(body)):  # a gzip bomb is cut the same way
        # the crawler reads the first 200 bytes: the entries complete within them
        assert [e.loc for e in parse_sitemap(data).urls] == [
            "https://a.example/page-000",
            "https://a.example/page-001",
            "https://a.example/page-002",
            "https://a.example/page-003",
        ]
        with pytest.raises(SitemapError, match="^larger than 200 bytes uncompressed$"):
            read_sitemap(data)
        path = tmp_path / "big.xml"
        path.write_bytes(data)
        with pytest.raises(ImportFormatError, match="^big.xml: larger than 200 bytes"):
            read_url_list(path)


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            b"<urlset>\n<url><loc>https://a.example/</loc></url>\n"
            b"<url><loc>x</loc></url\n</urlset>",
            4,
            "not well-formed XML: not well-formed (invalid token) at column 1",
        ),
        (
            b'<!DOCTYPE urlset [<!ENTITY a "https://a.example/">]>\n'
            b"<urlset><url><loc>&a;</loc></url></urlset>",
            1,
            "a DOCTYPE is not allowed in a sitemap",
        ),
        (b"<rss><channel/></rss>", 1, "expected <urlset> or <sitemapindex>, got <rss>"),
        (b"\x1f\x8b\x08\x00broken", None, "broken gzip data"),
    ],
)
def test_bad_input_strict_and_lenient(body: bytes, line: int | None, message: str) -> None:
    with pytest.raises(SitemapError) as info:
        read_sitemap(body)
    assert (info.value.line, info.value.message[: len(message)]) == (line, message)
    kept = [e.loc for e in parse_sitemap(body).urls]  # the crawler keeps what came before
    assert kept == (["https://a.example/", "x"] if line == 4 else [])


def test_previous_pages_have_one_writer_and_one_reader(tmp_path: Path) -> None:
    path = tmp_path / "previous.jsonl"
    pages = {
        "https://a.example/": PreviousPage(etag='"1"', content_hash="h1", html="<p>café</p>"),
        "https://a.example/Old?utm_source=x": PreviousPage(last_modified="Mon", html="<p>2</p>"),
        "https://a.example/no-validator": PreviousPage(html="<p>3</p>"),
        "https://a.example/earlier": PreviousPage(
            etag='"4"', html_z=compress_html("<p>4</p>"), parse_z=b"P", carry=True
        ),
    }
    assert write_previous(pages.items(), path) == 4
    previous = PreviousCrawl(path, {"strip_params": frozenset({"utm_source"})})
    assert sorted(previous.index) == [
        "https://a.example/",
        "https://a.example/Old",
        "https://a.example/earlier",
    ]
    assert previous.carried("https://a.example/earlier") == (compress_html("<p>4</p>"), b"P")
    assert previous.headers("https://a.example/") == {"If-None-Match": '"1"'}
    assert previous.headers("https://a.example/Old") == {"If-Modified-Since": "Mon"}
    page = previous.row("https://a.example/")
    assert page is not None and previous.html(page) == "<p>café</p>"
    assert {k: v for k, v in page.items() if k != "html_at"} == {
        "etag": '"1"',
        "content_hash": "h1",
        "url": "https://a.example/",
    }
    assert previous.parse_z(page) == b"" and previous.carried("https://a.example/") == (None, None)
    assert previous.row("https://a.example/no-validator") is None
    # both files stay open between reads, in any order, and open again after close()
    earlier = previous.row("https://a.example/earlier")
    assert earlier is not None and previous.parse_z(earlier) == b"P"
    assert previous.html(page) == "<p>café</p>" and previous.html(earlier) == "<p>4</p>"
    assert len(previous._files) == 2
    previous.close()
    assert previous._files == {} and previous.html(earlier) == "<p>4</p>"
    previous.close()
