"""Crawl importers: Screaming Frog exports, WARC files and URL lists/sitemaps."""

import gzip
import hashlib
import io
import shutil
from pathlib import Path

import pytest

from linkpipe.lib.importers import ImportFormatError, read_screaming_frog, read_url_list, read_warc
from linkpipe.lib.records import PageRecord

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SF = FIXTURES / "screaming_frog"
SF_BAD = FIXTURES / "screaming_frog_bad"
H = "https://www.example.com"
GUIDE = H + "/blog/internal-linking-guide/"


def _filled(page: PageRecord) -> dict:
    """The fields of a record that differ from the defaults."""
    default = PageRecord(url="").as_row()
    return {k: v for k, v in page.as_row().items() if v != default[k]}


# -- Screaming Frog ---------------------------------------------------------------------------


def test_sf_fixture_is_shaped_like_a_real_export():
    for name in ("internal_all.csv", "all_inlinks.csv"):
        data = (SF / name).read_bytes()
        assert data.startswith(b"\xef\xbb\xbf")
        assert data.count(b"\r\n") == data.count(b"\n")


def test_sf_pages():
    crawl = read_screaming_frog(SF)
    pages = {p.url: p for p in crawl.pages}
    assert crawl.start_url == H + "/"
    assert list(pages) == [
        H + "/",
        H + "/blog/",
        GUIDE,
        GUIDE + "?print=1",
        H + "/old-pricing",
        H + "/pricing/",
        H + "/missing-page",
        H + "/thank-you/",
        H + "/%C3%BCber-uns/",
        H + "/images/team.jpg",
        H + "/cart/",
    ]
    assert _filled(pages[H + "/"]) == {
        "url": H + "/",
        "original_url": H + "/",
        "final_url": H + "/",
        "status": 200,
        "content_type": "text/html",
        "charset": "utf-8",
        "canonical": H + "/",
        "title": "Example Co – Internal Linking Software",
        "h1": "Link your content",
        "meta_description": "We help editors link their articles.",
        "content_hash": "3f2a9c0d8e7b6a5f4e3d2c1b0a998877",
        "fetched_at": "2024-05-14T10:23:45",
        "response_ms": 182.0,
        "byte_size": 18342,
        "last_modified": "Tue, 14 May 2024 08:00:00 GMT",
    }
    guide = pages[GUIDE]
    assert guide.title == 'Internal Linking: A "Practical" Guide, 2024'
    assert guide.meta_description == "Anchors, hubs & spokes — the café owner's guide."
    assert (guide.depth, guide.html) == (2, "")
    print_version = pages[GUIDE + "?print=1"]
    assert print_version.original_url == GUIDE + "?utm_source=newsletter&print=1"
    assert (print_version.canonical, print_version.depth) == (GUIDE, 3)
    redirect = pages[H + "/old-pricing"]
    assert (redirect.status, redirect.final_url, redirect.redirect_chain, redirect.charset) == (
        301,
        H + "/pricing/",
        [H + "/old-pricing", H + "/pricing/"],
        "iso-8859-1",
    )
    assert (pages[H + "/missing-page"].status, pages[H + "/missing-page"].title) == (
        404,
        "Page not found",
    )
    assert pages[H + "/thank-you/"].meta_robots == "noindex, follow"
    about = pages[H + "/%C3%BCber-uns/"]
    assert (about.original_url, about.canonical, about.title) == (
        H + "/über-uns/",
        H + "/%C3%BCber-uns/",
        "Über uns",
    )
    assert (pages[H + "/images/team.jpg"].content_type, pages[H + "/images/team.jpg"].title) == (
        "image/jpeg",
        "",
    )
    assert _filled(pages[H + "/cart/"]) == {
        "url": H + "/cart/",
        "original_url": H + "/cart/",
        "depth": 3,
        "robots_disallowed": True,
        "error": "robots_disallowed",
    }


def test_sf_links():
    crawl = read_screaming_frog(SF)
    got = [
        (
            link.source_url,
            link.target_url,
            link.anchor_text,
            link.position,
            link.nofollow,
            link.rel,
            link.is_image,
            link.internal,
        )
        for link in crawl.links
    ]
    home, blog, pricing = H + "/", H + "/blog/", H + "/pricing/"
    # "Image" and "Canonical" rows are not links between pages
    assert got == [
        (home, blog, "Blog", "navigation", False, "", False, True),
        (home, pricing, "Pricing", "navigation", False, "", False, True),
        (home, GUIDE, "our internal linking guide", "content", False, "", False, True),
        (home, H + "/old-pricing", "see our old pricing", "content", False, "", False, True),
        (
            home,
            "https://partner.example.org/",
            "Our partner",
            "footer",
            True,
            "nofollow sponsored",
            False,
            False,
        ),
        (blog, GUIDE, "Guide cover", "content", False, "", True, True),
        (blog, H + "/missing-page", "a page that moved", "content", False, "", False, True),
        (GUIDE, pricing, "pricing plans", "content", True, "nofollow", False, True),
        (GUIDE, H + "/%C3%BCber-uns/", "About us", "footer", False, "", False, True),
        (GUIDE, blog, "All posts", "aside", False, "", False, True),
        (pricing, H + "/thank-you/", "Start your trial", "content", False, "", False, True),
        (pricing, home, "Home", "header", False, "", False, True),
        (pricing, H + "/cart/", "Cart", "content", False, "", False, True),
    ]
    assert all(link.block_id == "" for link in crawl.links)
    assert crawl.warnings == [
        "all_inlinks.csv line 16: unknown Link Position 'Mobile Menu' counted as content"
    ]


@pytest.mark.parametrize(
    ("case", "file", "line", "column", "message"),
    [
        (
            "bad_status_code",  # line 8: the quoted title of the row on line 3 spans two lines
            "internal_all.csv",
            8,
            "Status Code",
            "internal_all.csv line 8, column \"Status Code\": expected an integer, got 'abc'",
        ),
        (
            "bad_crawl_depth",
            "internal_all.csv",
            3,
            "Crawl Depth",
            "internal_all.csv line 3, column \"Crawl Depth\": expected an integer, got 'two'",
        ),
        (
            "bad_size",
            "internal_all.csv",
            6,
            "Size (bytes)",
            "internal_all.csv line 6, column \"Size (bytes)\": expected an integer, got '12 KB'",
        ),
        (
            "short_row",
            "internal_all.csv",
            5,
            "Size (bytes)",
            'internal_all.csv line 5, column "Size (bytes)": the row has 5 fields, '
            "the header has 7",
        ),
        (
            "no_address",
            "internal_all.csv",
            1,
            "Address",
            'internal_all.csv line 1, column "Address": missing from the header '
            "(found: 'URL', 'Status Code', 'Title 1')",
        ),
        (
            "bad_url",
            "internal_all.csv",
            3,
            "Address",
            'internal_all.csv line 3, column "Address": expected an absolute http(s) URL, '
            "got '/relative/path'",
        ),
        (
            "not_utf8",
            "internal_all.csv",
            3,
            "Title 1",
            'internal_all.csv line 3, column "Title 1": byte 0xe9 is not valid UTF-8; '
            "export the file again as UTF-8",
        ),
        (
            "bad_quotes",
            "internal_all.csv",
            3,
            None,
            "internal_all.csv line 3: not a valid CSV file (',' expected after '\"')",
        ),
        (
            "excel",
            "internal_all.csv",
            None,
            None,
            "internal_all.csv: an Excel workbook, not a CSV file",
        ),
        (
            "bad_inlinks",
            "all_inlinks.csv",
            3,
            "Follow",
            "all_inlinks.csv line 3, column \"Follow\": expected true or false, got 'sometimes'",
        ),
    ],
)
def test_sf_malformed_exports_raise_with_location(case, file, line, column, message):
    with pytest.raises(ImportFormatError) as info:
        read_screaming_frog(SF_BAD / case)
    error = info.value
    assert (error.file, error.line, error.column, str(error)) == (file, line, column, message)
    assert isinstance(error, ValueError)


def test_sf_without_inlinks_warns(tmp_path):
    shutil.copy(SF / "internal_all.csv", tmp_path / "internal_all.csv")
    crawl = read_screaming_frog(tmp_path)
    assert (len(crawl.pages), crawl.links) == (11, [])
    assert crawl.warnings == [
        "all_inlinks.csv not found: no links imported "
        "(export Bulk Export > Links > All Inlinks as CSV)"
    ]


def test_sf_missing_internal_all(tmp_path):
    with pytest.raises(ImportFormatError, match=r"^internal_all.csv: not found in "):
        read_screaming_frog(tmp_path)


def test_sf_columns_by_name_title_row_and_minimal_export(tmp_path):
    # old exports start with an "Internal - All" title row; columns may come in any order
    (tmp_path / "internal_all.csv").write_bytes(
        b'\xef\xbb\xbf"Internal - All"\r\n"Status Code","Meta Robots 2","Address","Meta Robots 1"\r\n'
        b'"200","NOFOLLOW","https://Example.com/b?utm_medium=x","noindex"\r\n'
        b'"","","https://example.com/",""\r\n'
    )
    crawl = read_screaming_frog(tmp_path)
    assert [(p.url, p.status, p.original_url, p.meta_robots) for p in crawl.pages] == [
        ("https://example.com/b", 200, "https://Example.com/b?utm_medium=x", "noindex, nofollow"),
        ("https://example.com/", 0, "https://example.com/", ""),
    ]
    assert crawl.pages[1].error == "not fetched"
    assert crawl.start_url == "https://example.com/b"  # no Crawl Depth column: the first row


def test_sf_utf16_tab_separated_export(tmp_path):
    # the same table saved by a spreadsheet program as "Unicode Text"
    text = "Address\tStatus Code\tTitle 1\r\nhttps://example.com/café\t200\tCafé, bar\r\n"
    (tmp_path / "internal_all.csv").write_bytes(text.encode("utf-16"))
    [page] = read_screaming_frog(tmp_path).pages
    assert (page.url, page.status, page.title) == (
        "https://example.com/caf%C3%A9",
        200,
        "Café, bar",
    )


# -- WARC -------------------------------------------------------------------------------------

SHOP = "https://shop.example.com"
HOME_HTML = (
    "<html><head><title>Shop</title><link rel=canonical href='/'>"
    "<meta name=description content='Desserts, delivered.'></head><body>"
    "<nav><a href='/products/creme'>Crème</a></nav>"
    "<main><h1>Welcome</h1><p>Our <a href='/old'>old offer</a>, a "
    "<a href='https://other.example.net/x'>friend</a> and a "
    "<a href='/products/creme' rel='nofollow'>paid link</a>.</p></main>"
    "<footer><a href='/about'>About</a></footer></body></html>"
)
CREME_HTML = (
    "<html><head><title>Crème brûlée – 5€</title></head><body><h1>Crème brûlée</h1>"
    "<p><a href='/'>Home</a></p></body></html>"
)


def _write_warc(path: Path, compress: bool = True) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with path.open("wb") as handle:
        writer = WARCWriter(handle, gzip=compress)
        writer.write_record(writer.create_warcinfo_record(path.name, {"software": "test"}))

        def response(url: str, status: str, headers: list, body: bytes = b"") -> None:
            http = StatusAndHeaders(status, headers, protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(
                    url,
                    "response",
                    payload=io.BytesIO(body),
                    http_headers=http,
                    warc_headers_dict={"WARC-Date": "2024-05-14T10:23:45Z"},
                )
            )

        response(
            SHOP + "/",
            "200 OK",
            [
                ("Content-Type", "text/html; charset=utf-8"),
                ("ETag", '"v1"'),
                ("Last-Modified", "Tue, 14 May 2024 08:00:00 GMT"),
            ],
            HOME_HTML.encode("utf-8"),
        )
        response(SHOP + "/old", "301 Moved Permanently", [("Location", "/products/creme?utm_x=1")])
        response(
            SHOP + "/products/creme",
            "200 OK",
            [("Content-Type", "text/html; charset=windows-1252"), ("X-Robots-Tag", "NoIndex")],
            CREME_HTML.encode("cp1252"),
        )
        response(SHOP + "/about", "404 Not Found", [("Content-Type", "text/html")], b"<p>gone")


@pytest.mark.parametrize("compress", [True, False])
def test_warc_pages(tmp_path, compress):
    path = tmp_path / ("crawl.warc.gz" if compress else "crawl.warc")
    _write_warc(path, compress)
    crawl = read_warc(path)
    pages = {p.url: p for p in crawl.pages}
    assert crawl.start_url == SHOP + "/"
    assert crawl.warnings == []
    assert list(pages) == [SHOP + "/", SHOP + "/old", SHOP + "/products/creme", SHOP + "/about"]
    home = pages[SHOP + "/"]
    assert _filled(home) == {
        "url": SHOP + "/",
        "original_url": SHOP + "/",
        "final_url": SHOP + "/",
        "status": 200,
        "content_type": "text/html",
        "charset": "utf-8",
        "canonical": SHOP + "/",
        "title": "Shop",
        "h1": "Welcome",
        "meta_description": "Desserts, delivered.",
        "html": HOME_HTML,
        "content_hash": hashlib.sha1(HOME_HTML.encode("utf-8")).hexdigest(),
        "fetched_at": "2024-05-14T10:23:45+00:00",
        "byte_size": len(HOME_HTML.encode("utf-8")),
        "etag": '"v1"',
        "last_modified": "Tue, 14 May 2024 08:00:00 GMT",
    }
    assert _filled(pages[SHOP + "/old"]) == {
        "url": SHOP + "/old",
        "original_url": SHOP + "/old",
        "final_url": SHOP + "/products/creme",
        "status": 301,
        "redirect_chain": [SHOP + "/old", SHOP + "/products/creme"],
        "depth": 1,
        "fetched_at": "2024-05-14T10:23:45+00:00",
    }
    creme = pages[SHOP + "/products/creme"]
    assert (creme.charset, creme.title, creme.h1, creme.x_robots_tag) == (
        "windows-1252",
        "Crème brûlée – 5€",
        "Crème brûlée",
        "noindex",
    )
    assert (creme.html, creme.depth) == (CREME_HTML, 1)
    assert creme.content_hash == hashlib.sha1(CREME_HTML.encode("utf-8")).hexdigest()
    about = pages[SHOP + "/about"]
    assert (about.status, about.html, about.content_hash, about.depth) == (404, "", "", 1)


def test_warc_links(tmp_path):
    path = tmp_path / "crawl.warc.gz"
    _write_warc(path)
    got = [
        (
            link.source_url,
            link.target_url,
            link.anchor_text,
            link.position,
            link.nofollow,
            link.internal,
        )
        for link in read_warc(path).links
    ]
    creme = SHOP + "/products/creme"
    assert got == [
        (SHOP + "/", creme, "Crème", "navigation", False, True),
        (SHOP + "/", SHOP + "/old", "old offer", "content", False, True),
        (SHOP + "/", "https://other.example.net/x", "friend", "content", False, False),
        (SHOP + "/", creme, "paid link", "content", True, True),
        (SHOP + "/", SHOP + "/about", "About", "footer", False, True),
        (creme, SHOP + "/", "Home", "content", False, True),
    ]


def test_warc_redirect_chains_through_the_file(tmp_path):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path = tmp_path / "loop.warc.gz"
    with path.open("wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for source, target in (("/", "/a"), ("/a", "/b"), ("/b", "/a")):
            http = StatusAndHeaders("302 Found", [("Location", target)], protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(
                    SHOP + source, "response", payload=io.BytesIO(b""), http_headers=http
                )
            )
    pages = {p.url: p for p in read_warc(path).pages}
    home = pages[SHOP + "/"]
    assert (home.redirect_chain, home.final_url, home.redirect_loop, home.error) == (
        [SHOP + "/", SHOP + "/a", SHOP + "/b", SHOP + "/a"],
        SHOP + "/a",
        True,
        "redirect_loop",
    )
    assert [p.depth for p in pages.values()] == [0, 0, 0]  # a redirect hop keeps the depth


def test_warc_hash_matches_the_crawler(tmp_path):
    from linkpipe.lib.hashing import text_hash

    path = tmp_path / "crawl.warc.gz"
    _write_warc(path)
    for page in read_warc(path).pages:
        if page.html:
            assert page.content_hash == text_hash(page.html)


def test_warc_gzipped_as_a_whole_is_read(tmp_path):
    plain = tmp_path / "crawl.warc"
    _write_warc(plain, compress=False)
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(gzip.compress(plain.read_bytes()))
    crawl = read_warc(whole)
    assert len(crawl.pages) == 4
    assert crawl.warnings == ["whole.warc.gz is gzipped as a whole, not per record; read it anyway"]


def test_warc_malformed(tmp_path):
    junk = tmp_path / "junk.warc"
    junk.write_bytes(b"hello world\nthis is not a warc\n")
    with pytest.raises(ImportFormatError) as info:
        read_warc(junk)
    assert str(info.value) == "junk.warc offset 0: Unknown archive format, first line: " + repr(
        ["hello", "world"]
    )
    assert (info.value.file, info.value.line, info.value.column) == ("junk.warc", 0, None)

    plain = tmp_path / "crawl.warc"
    _write_warc(plain, compress=False)
    good = plain.read_bytes()
    last = good.rindex(b"WARC/1.0\r\n")  # offset of the last record (the 404)
    garbage = tmp_path / "garbage.warc"
    garbage.write_bytes(good + b"not a record\r\n\r\n")
    with pytest.raises(ImportFormatError) as info:
        read_warc(garbage)
    assert str(info.value) == (
        f"garbage.warc offset {len(good)}: Invalid WARC record, first line: not a record"
    )

    truncated = tmp_path / "truncated.warc"
    truncated.write_bytes(good[:-50])
    with pytest.raises(ImportFormatError) as info:
        read_warc(truncated)
    assert (
        str(info.value)
        == f"truncated.warc offset {last}: truncated record: the file ends inside it"
    )

    gz = tmp_path / "crawl.warc.gz"
    _write_warc(gz)
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(gz.read_bytes()[:-60])
    with pytest.raises(ImportFormatError, match=r"^cut\.warc\.gz offset \d+: truncated record"):
        read_warc(cut)

    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    with pytest.raises(ImportFormatError, match=r"^empty\.warc: no HTTP response records$"):
        read_warc(empty)


# -- URL lists and sitemaps --------------------------------------------------------------------


def test_url_list_text(tmp_path):
    path = tmp_path / "urls.txt"
    path.write_bytes(
        b"\xef\xbb\xbf# seeds for the May crawl\r\nhttps://www.example.com/\r\n\r\n"
        b"  https://www.example.com/blog/?utm_source=x  \r\nhttps://www.example.com/blog/\r\n"
        b"   # indented comment\r\nhttp://www.example.com/caf\xc3\xa9/\r\n"
    )
    # as written; a URL equal to an earlier one once normalized is dropped
    assert read_url_list(path) == [
        "https://www.example.com/",
        "https://www.example.com/blog/?utm_source=x",
        "http://www.example.com/café/",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"https://www.example.com/\n# ok\n\nwww.example.com/about\n",
            "urls.txt line 4: expected an absolute http(s) URL, got 'www.example.com/about'",
        ),
        (
            b"https://www.example.com/\nmailto:info@example.com\n",
            "urls.txt line 2: expected an absolute http(s) URL, got 'mailto:info@example.com'",
        ),
        (
            b"https://www.example.com/ 200 OK\n",
            "urls.txt line 1: expected an absolute http(s) URL, got 'https://www.example.com/ 200 OK'"
            " (it contains whitespace)",
        ),
        (
            b"https://www.example.com:99999/\n",
            "urls.txt line 1: expected an absolute http(s) URL, got 'https://www.example.com:99999/'",
        ),
        (
            b"https://a.example/\n\nhttps://a.example/caf\xe9\n",
            "urls.txt line 3: byte 0xe9 is not valid UTF-8",
        ),
        (b"# nothing here\n\n", "urls.txt: no URLs found"),
    ],
)
def test_url_list_errors(tmp_path, content, message):
    path = tmp_path / "urls.txt"
    path.write_bytes(content)
    with pytest.raises(ImportFormatError) as info:
        read_url_list(path)
    assert str(info.value) == message


URLSET = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://www.example.com/</loc><lastmod>2024-05-01</lastmod></url>
  <url>
    <loc>
      https://www.example.com/search?q=a&amp;page=2
    </loc>
  </url>
  <url><loc><![CDATA[https://www.example.com/blog/]]></loc></url>
</urlset>
"""


def test_sitemap_urlset_and_gzipped_index(tmp_path):
    (tmp_path / "pages.xml").write_text(URLSET, encoding="utf-8")
    assert read_url_list(tmp_path / "pages.xml") == [
        "https://www.example.com/",
        "https://www.example.com/search?q=a&page=2",
        "https://www.example.com/blog/",
    ]
    (tmp_path / "posts.xml.gz").write_bytes(
        gzip.compress(
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            b"<url><loc>https://www.example.com/blog/a/</loc></url>"
            b"<url><loc>https://www.example.com/</loc></url></urlset>"
        )
    )
    index = tmp_path / "sitemap_index.xml.gz"
    index.write_bytes(
        gzip.compress(
            b'<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            b"<sitemap><loc>https://www.example.com/pages.xml</loc></sitemap>\n"
            b"<sitemap><loc>https://www.example.com/posts.xml.gz</loc></sitemap>\n"
            b"</sitemapindex>\n"
        )
    )
    assert read_url_list(index) == [
        "https://www.example.com/",
        "https://www.example.com/search?q=a&page=2",
        "https://www.example.com/blog/",
        "https://www.example.com/blog/a/",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            URLSET.replace("https://www.example.com/blog/", "/blog/"),
            "sitemap.xml line 9: expected an absolute http(s) URL, got '/blog/'",
        ),
        (
            "<urlset>\n<url><loc>https://a.example/</loc></url>\n<url><loc>x</loc></url\n</urlset>",
            "sitemap.xml line 4: not well-formed XML: not well-formed (invalid token) at column 1",
        ),
        (
            '<?xml version="1.0"?>\n<rss version="2.0"><channel/></rss>',
            "sitemap.xml line 2: expected <urlset> or <sitemapindex>, got <rss>",
        ),
        (
            "<sitemapindex>\n<sitemap><loc>https://a.example/s1.xml</loc></sitemap>\n</sitemapindex>",
            "sitemap.xml line 2: child sitemap 'https://a.example/s1.xml' not found next to "
            "sitemap.xml (expected 's1.xml' in {folder})",
        ),
        (
            '<!DOCTYPE urlset [<!ENTITY a "aaaa">]>\n<urlset/>',
            "sitemap.xml line 1: a DOCTYPE is not allowed in a sitemap",
        ),
    ],
)
def test_sitemap_errors(tmp_path, content, message):
    path = tmp_path / "sitemap.xml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        read_url_list(path)
    assert str(info.value) == message.format(folder=tmp_path)
