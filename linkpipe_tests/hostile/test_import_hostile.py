"""Hostile import files: Screaming Frog folders, WARC files, URL lists and sitemaps. Every
broken file is refused in one line naming file, line (or byte offset) and column, before a crawl
is registered: the database keeps every row. A few awkward but valid files are read."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from linkpipe.lib.importers import read_screaming_frog, read_url_list, read_warc
from linkpipe_tests.hostile.conftest import Case

E = "linkpipe: error: "
HEADER = '"Address","Status Code","Content Type","Crawl Depth","Response Time"\n'
HOME = '"http://s.test/",200,"text/html",0,0.1\n'
HTML = b"<html><head><title>T</title></head><body><p>Some words here.</p><a href='/b'>b</a></body></html>"
NOT_URL = r"expected an absolute http\(s\) URL, got "


def warc(*responses: tuple[str, str, str, bytes], compress: bool = True) -> bytes:
    """A WARC file of response records (url, status line, content type, body)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    out = io.BytesIO()
    writer = WARCWriter(out, gzip=compress)
    for url, status, content_type, body in responses:
        http = StatusAndHeaders(status, [("Content-Type", content_type)], protocol="HTTP/1.1")
        record = writer.create_warc_record(
            url, "response", payload=io.BytesIO(body), http_headers=http
        )
        writer.write_record(record)
    return out.getvalue()


GOOD_WARC = warc(
    ("http://s.test/", "200 OK", "text/html", HTML),
    ("http://s.test/b", "200 OK", "text/html", HTML),
    compress=False,
)
GOOD_WARC_GZ = warc(
    ("http://s.test/", "200 OK", "text/html", HTML),
    ("http://s.test/b", "200 OK", "text/html", HTML),
)


def sf(case_id: str, pages: str | bytes, message: str, inlinks: str | None = None, **kw) -> Case:
    """`import` of a Screaming Frog folder holding ``internal_all.csv`` (+ ``all_inlinks.csv``)."""
    files: dict[str, str | bytes] = {"sf/internal_all.csv": pages}
    if inlinks is not None:
        files["sf/all_inlinks.csv"] = inlinks
    argv = ("import", "{tmp}/sf", "--db", "{db}", "--model", "hashing-64")
    return Case(case_id, argv, E + message, db="kept", files=files, **kw)


def one_file(case_id: str, name: str, content: str | bytes, message: str, **kw) -> Case:
    """`import` of one file (the kind told by its name, or by --kind url_list for sitemaps)."""
    kind = ("--kind", "url_list") if name.endswith((".xml", ".xml.gz", ".txt")) else ()
    argv = ("import", "{tmp}/" + name, "--db", "{db}", "--model", "hashing-64", *kind)
    return Case(case_id, argv, E + message, db="kept", files={name: content}, **kw)


SCREAMING_FROG_CASES = [
    sf("sf-missing-address-column", '"URL","Status Code"\n"http://s.test/",200\n', r'internal_all\.csv line 1, column "Address": missing from the header \(found: \'URL\', \'Status Code\'\)'),
    sf("sf-wrong-delimiter", "Address|Status Code\nhttp://s.test/|200\n", r'internal_all\.csv line 1, column "Address": missing from the header \(found: \'Address\|Status Code\'\)'),
    sf("sf-binary-junk", bytes(range(256)) * 8, r"internal_all\.csv: binary data, not a CSV file"),
    sf("sf-empty-file", b"", r"internal_all\.csv line 1: the file is empty"),
    sf("sf-header-only", HEADER, r"internal_all\.csv: no URLs in the export"),
    sf("sf-huge-field", HEADER + '"http://s.test/' + "a" * 300_000 + '",200,"text/html",0,0.1\n', r"internal_all\.csv line 2: not a valid CSV file \(field larger than field limit \(131072\)\)"),
    sf("sf-excel-renamed", b"PK\x03\x04" + bytes(200), r"internal_all\.csv: an Excel workbook, not a CSV file"),
    sf("sf-invalid-utf8", HEADER.encode() + b'"http://s.test/caf\xe9",200,"text/html",0,0.1\n', r'internal_all\.csv line 2, column "Address": byte 0xe9 is not valid UTF-8; export the file again as UTF-8'),
    sf("sf-utf16-without-bom", HEADER.encode("utf-16-le"), r"internal_all\.csv: binary data, not a CSV file"),
    sf("sf-unterminated-quote", HEADER + '"http://s.test/,200,"text/html",0,0.1\n', r"internal_all\.csv line 2: not a valid CSV file \(',' expected after '\"'\)"),
    sf("sf-status-not-integer", HEADER + '"http://s.test/",abc,"text/html",0,0.1\n', r'internal_all\.csv line 2, column "Status Code": expected an integer, got \'abc\''),
    sf("sf-status-out-of-range", HEADER + '"http://s.test/",99999999999999999999999,"text/html",0,0.1\n', r'internal_all\.csv line 2, column "Status Code": expected an integer from 0 to 999, got \'99999999999999999999999\''),
    sf("sf-negative-depth", HEADER + '"http://s.test/",200,"text/html",-5,0.1\n', r'internal_all\.csv line 2, column "Crawl Depth": expected an integer from 0 to 2147483647, got \'-5\''),
    sf("sf-response-time-nan", HEADER + '"http://s.test/",200,"text/html",0,nan\n', r'internal_all\.csv line 2, column "Response Time": expected a number, got \'nan\''),
    sf("sf-relative-address", HEADER + '"/about/",200,"text/html",0,0.1\n', r'internal_all\.csv line 2, column "Address": ' + NOT_URL + r"'/about/'"),
    sf("sf-ftp-address", HEADER + '"ftp://s.test/",200,"text/html",0,0.1\n', r'internal_all\.csv line 2, column "Address": ' + NOT_URL + r"'ftp://s\.test/'"),
    sf("sf-short-row", HEADER + '"http://s.test/",200\n', r'internal_all\.csv line 2, column "Content Type": the row has 2 fields, the header has 5'),
    sf("sf-title-row-only", '"Internal - All"\n', r'internal_all\.csv line 1, column "Address": missing from the header \(found: \'Internal - All\'\)'),
    sf("sf-inlinks-no-destination", HEADER + HOME, r'all_inlinks\.csv line 1, column "Destination": missing from the header \(found: \'Source\', \'Dest\'\)', inlinks='"Source","Dest"\n"http://s.test/","http://s.test/a"\n'),
    sf("sf-inlinks-source-not-url", HEADER + HOME, r'all_inlinks\.csv line 3, column "Source": ' + NOT_URL + r"'not a url'", inlinks='"Type","Source","Destination"\n"Hyperlink","http://s.test/","/a"\n"Hyperlink","not a url","/b"\n'),
    Case("sf-folder-without-export", ("import", "{tmp}/sf", "--db", "{db}"), E + r"internal_all\.csv: not found in {tmp}/sf: export Internal > All from Screaming Frog as CSV", files={"sf/readme.txt": "nothing"}, db="kept"),
]  # fmt: skip

WARC_CASES = [
    one_file("warc-truncated", "cut.warc", GOOD_WARC[:-40], r"cut\.warc offset \d+: truncated record: the file ends inside it"),
    one_file("warc-truncated-gzip", "cut.warc.gz", GOOD_WARC_GZ[:-30], r"cut\.warc\.gz offset \d+: truncated record: the file ends inside it"),
    one_file("warc-no-html", "media.warc.gz", warc(("http://s.test/logo.png", "200 OK", "image/png", b"\x89PNG" + bytes(64)), ("http://s.test/site.css", "200 OK", "text/css", b"p{}")), r"media\.warc\.gz: no HTML page among its 2 HTTP responses \(a 2xx answer of type text/html\): nothing to find links in"),
    one_file("warc-only-errors", "gone.warc.gz", warc(("http://s.test/", "404 Not Found", "text/html", HTML)), r"gone\.warc\.gz: no HTML page among its 1 HTTP responses .*"),
    one_file("warc-bad-status-line", "odd.warc.gz", warc(("http://s.test/", "abc OK", "text/html", HTML)), r"odd\.warc\.gz offset 0: no valid HTTP status line for http://s\.test/ \('abc OK'\)"),
    one_file("warc-junk-bytes", "junk.warc", bytes(range(256)) * 4, r"junk\.warc offset 0: Unknown archive format, first line: .*"),
    one_file("warc-text-file", "notes.warc", "hello world\n" * 5, r"notes\.warc offset 0: Unknown archive format, first line: \['hello', 'world'\]"),
    one_file("warc-fake-gzip", "fake.warc.gz", b"\x1f\x8b" + bytes(range(256)), r"fake\.warc\.gz offset 0: .+"),
    one_file("warc-empty", "empty.warc", b"", r"empty\.warc: no HTTP response records"),
]  # fmt: skip

URL_LIST_CASES = [
    one_file("list-garbage-line", "urls.txt", "http://s.test/\nnot a url\n", r"urls\.txt line 2: " + NOT_URL + r"'not a url' \(it contains whitespace\)"),
    one_file("list-empty", "urls.txt", "", r"urls\.txt: no URLs found"),
    one_file("list-only-comments", "urls.txt", "# seeds\n\n# none yet\n", r"urls\.txt: no URLs found"),
    one_file("list-binary", "urls.txt", bytes(range(256)) * 4, r"urls\.txt line 2: byte 0x80 is not valid UTF-8"),
    one_file("list-utf16", "urls.txt", "http://s.test/\n".encode("utf-16"), r"urls\.txt line 1: byte 0xff is not valid UTF-8"),
    one_file("list-file-url", "urls.txt", "http://s.test/\nfile:///etc/passwd\n", r"urls\.txt line 2: " + NOT_URL + r"'file:///etc/passwd'"),
    one_file("list-javascript-url", "urls.txt", "javascript:alert(1)\n", r"urls\.txt line 1: " + NOT_URL + r"'javascript:alert\(1\)'"),
    one_file("list-bad-port", "urls.txt", "http://s.test:99999/\n", r"urls\.txt line 1: " + NOT_URL + r"'http://s\.test:99999/'"),
    one_file("list-control-character", "urls.txt", "http://s.test/a\x00b\n", r"urls\.txt line 1: " + NOT_URL + r"'http://s\.test/a\\x00b' \(it contains control characters\)"),
    one_file("list-userinfo", "urls.txt", "http://user:pw@s.test/\n", r"urls\.txt line 1: " + NOT_URL + r"'http://user:pw@s\.test/' \(a user name or password in a URL is not supported\)"),
    one_file(
        "list-site-down", "urls.txt", "{closed}\n", r"could not reach {closed}: connection refused",
    ),
]  # fmt: skip

LAUGHS = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><urlset><url><loc>http://s.test/&b;</loc></url></urlset>'
URLSET = (
    '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</urlset>'
)
SITEMAP_CASES = [
    one_file("sitemap-malformed-xml", "sitemap.xml", '<?xml version="1.0"?><urlset><url><loc>http://s.test/</loc></url>', r"sitemap\.xml line 1: not well-formed XML: no element found at column \d+"),
    one_file("sitemap-entity-expansion", "sitemap.xml", LAUGHS, r"sitemap\.xml line 1: a DOCTYPE is not allowed in a sitemap"),
    one_file("sitemap-wrong-root", "sitemap.xml", '<?xml version="1.0"?><html><url><loc>http://s.test/</loc></url></html>', r"sitemap\.xml line 1: expected <urlset> or <sitemapindex>, got <html>"),
    one_file("sitemap-index-child-missing", "sitemap.xml", '<sitemapindex><sitemap><loc>http://s.test/child.xml</loc></sitemap></sitemapindex>', r"sitemap\.xml line 1: child sitemap 'http://s\.test/child\.xml' not found next to sitemap\.xml \(expected 'child\.xml' in {tmp}\)"),
    one_file("sitemap-index-of-itself", "sitemap.xml", '<sitemapindex><sitemap><loc>http://s.test/sitemap.xml</loc></sitemap></sitemapindex>', r"sitemap\.xml: no URLs found"),
    one_file("sitemap-broken-gzip", "sitemap.xml.gz", gzip.compress(URLSET.encode() * 50)[:60], r"sitemap\.xml\.gz: broken gzip data \(.+\)"),
    one_file("sitemap-gzip-bomb", "sitemap.xml.gz", gzip.compress(b"<urlset>" + b" " * 60_000_000, 9), r"sitemap\.xml\.gz: larger than 52428800 bytes uncompressed"),
    one_file("sitemap-100k-junk-lines", "sitemap.xml", URLSET.format("<url><loc>http://s.test/</loc></url>\n" + "<url><loc>junk line</loc></url>\n" * 100_000), r"sitemap\.xml line 2: " + NOT_URL + r"'junk line' \(it contains whitespace\)"),
    one_file("sitemap-empty-urlset", "sitemap.xml", URLSET.format(""), r"sitemap\.xml: no URLs found"),
    one_file("sitemap-relative-loc", "sitemap.xml", URLSET.format("<url><loc>/about/</loc></url>"), r"sitemap\.xml line 1: " + NOT_URL + r"'/about/'"),
]  # fmt: skip

CASES = SCREAMING_FROG_CASES + WARC_CASES + URL_LIST_CASES + SITEMAP_CASES


@pytest.mark.parametrize("case", [case.param() for case in CASES])
def test_hostile_import(case: Case, check_case) -> None:
    check_case(case)


def test_awkward_but_valid_screaming_frog_export_is_read(tmp_path: Path) -> None:
    """UTF-8 BOM, semicolons, CR line ends, a title row and an unknown column are all fine."""
    folder = tmp_path / "sf"
    folder.mkdir()
    text = '"Internal - All"\r"Address";"Status Code";"Whatever"\r"http://s.test/";200;"x"\r'
    (folder / "internal_all.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    crawl = read_screaming_frog(folder)
    assert [(p.url, p.status) for p in crawl.pages] == [("http://s.test/", 200)]
    assert crawl.warnings == [
        "all_inlinks.csv not found: no links imported (export Bulk Export > Links > All "
        "Inlinks as CSV)"
    ]


def test_a_warc_gzipped_as_a_whole_and_a_list_with_a_bom_are_read(tmp_path: Path) -> None:
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(gzip.compress(GOOD_WARC))
    crawl = read_warc(whole)
    assert [(p.url, p.title) for p in crawl.pages] == [
        ("http://s.test/", "T"),
        ("http://s.test/b", "T"),
    ]
    assert crawl.warnings == ["whole.warc.gz is gzipped as a whole, not per record; read it anyway"]
    listed = tmp_path / "urls.txt"
    listed.write_bytes(b"\xef\xbb\xbf# seeds\r\nhttp://s.test/\r\n\r\nhttp://s.test/#top\r\n")
    assert read_url_list(listed) == ["http://s.test/"]
