"""Crawler scope: relative sitemap URLs, sitemaps only on the site, the one host a start URL's
redirect may add, and sitemaps that fail without stopping the crawl. Each test serves small
sites on loopback; a second server (another port of 127.0.0.1) is another host."""

from __future__ import annotations

import functools
import json
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from linkpipe.lib.crawl import CrawlConfig, CrawlError, run_crawl
from linkpipe_tests.lib.crawl.test_crawl import (
    URLSET,
    Route,
    Routes,
    ServedSite,
    crawl,
    page,
    serve,
)

XML = {"Content-Type": "application/xml"}
TEXT = {"Content-Type": "text/plain"}
LIMITS = {"max_pages": 20, "request_timeout_s": 2.0, "total_time_s": 20.0, "retry_times": 0}


def index(*locs: str) -> str:
    children = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{children}</sitemapindex>'


def urlset(*locs: str) -> str:
    return URLSET.format(entries="".join(f"<url><loc>{loc}</loc></url>" for loc in locs))


def other_routes(base: str) -> Routes:
    """Another host: every request to it is counted and must not happen."""
    return {
        "/robots.txt": Route("User-agent: *\n", headers=TEXT),
        "/sitemap.xml": Route(urlset(f"{base}/elsewhere/"), headers=XML),
        "/elsewhere/": Route(page("Elsewhere")),
    }


def test_relative_sitemaps_in_scope_and_failures_recorded(tmp_path: Path) -> None:
    """robots.txt names its sitemap index relatively; the index has a relative child (resolved
    against the index's folder), a child and a robots.txt sitemap on another host (skipped,
    never requested), a malformed child (its entries before the error kept), a missing, a slow
    and a non-http child: the crawl goes on and the stats say what happened to each."""
    with serve(other_routes) as other:

        def routes(base: str) -> Routes:
            return {
                "/robots.txt": Route(
                    f"User-agent: *\nSitemap: /maps/index.xml\nSitemap: {other.base}/sitemap.xml\n",
                    headers=TEXT,
                ),
                "/maps/index.xml": Route(
                    index(
                        "pages.xml",
                        f"{other.base}/sitemap.xml",
                        "/maps/broken.xml",
                        "/maps/missing.xml",
                        "/maps/slow.xml",
                        "ftp://files.example/sitemap.xml",
                    ),
                    headers=XML,
                ),
                "/maps/pages.xml": Route(urlset("/orphan/", f"{base}/"), headers=XML),
                "/maps/broken.xml": Route(
                    "<urlset>\n<url><loc>/kept/</loc></url>\n<url><loc>x</url>\n", headers=XML
                ),
                "/maps/slow.xml": Route(urlset("/never/"), headers=XML, delay_s=3.5),
                "/": Route(page("Home", '<a href="/about/">About</a>')),
                "/about/": Route(page("About")),
                "/orphan/": Route(page("Orphan")),
                "/kept/": Route(page("Kept")),
                "/never/": Route(page("Never")),
            }

        with serve(routes) as site:
            crawled = crawl(site, tmp_path, **LIMITS)
    base = site.base
    assert other.hits == {}  # no request to the other host, not even its robots.txt
    orphan = crawled.at("/orphan/")
    assert (orphan.status, orphan.in_sitemap, orphan.depth) == (200, True, 1)
    assert crawled.at("/kept/").in_sitemap and crawled.at("/").in_sitemap
    assert not crawled.at("/about/").in_sitemap and f"{base}/never/" not in crawled.pages
    assert site.hits["/maps/pages.xml"] == 1 and site.hits["/sitemap.xml"] == 1  # default probe
    stats = crawled.result.stats
    assert (stats["skipped"]["sitemap_off_host"], stats["skipped"]["sitemap_bad_url"]) == (1, 1)
    files = stats["sitemap_files"]
    assert files["skipped"] == {
        "ftp://files.example/sitemap.xml": "sitemap_bad_url",
        f"{other.base}/sitemap.xml": "sitemap_off_host",
    }
    assert files["failed"] == {
        f"{base}/maps/broken.xml": "line 3: not well-formed XML: mismatched tag at column 14",
        f"{base}/maps/missing.xml": "HTTP 404",
        f"{base}/maps/slow.xml": "timed out",
    }
    assert (files["requested"], files["read"], files["failed_count"]) == (6, 3, 3)
    assert stats["sitemap_urls"] == 3 and stats["fatal"] == ""


def test_start_redirect_adds_one_host_and_its_sitemaps(tmp_path: Path) -> None:
    """The start URL redirects to a second server: that host joins the site; the sitemap that
    the start host's robots.txt named on it is read, and so is the one its own robots.txt names
    relatively, before its pages are fetched. A sitemap child and a link on a third host are
    not requested."""
    with serve(other_routes) as third:

        def second_routes(base: str) -> Routes:
            return {
                "/robots.txt": Route("User-agent: *\nSitemap: /own.xml\n", headers=TEXT),
                "/named.xml": Route(index("/pages.xml", f"{third.base}/sitemap.xml"), headers=XML),
                "/pages.xml": Route(urlset(f"{base}/home/", "/orphan/"), headers=XML),
                "/own.xml": Route(urlset("/own-orphan/"), headers=XML),
                "/home/": Route(page("Home", f'<a href="{third.base}/elsewhere/">there</a>')),
                "/orphan/": Route(page("Orphan")),
                "/own-orphan/": Route(page("Own orphan")),
            }

        with serve(second_routes) as second:

            def start_routes(base: str) -> Routes:
                return {
                    "/robots.txt": Route(
                        f"User-agent: *\nSitemap: {second.base}/named.xml\n", headers=TEXT
                    ),
                    "/": Route(status=301, headers={"Location": f"{second.base}/home/"}),
                }

            with serve(start_routes) as start:
                crawled = crawl(start, tmp_path, **LIMITS)
    assert third.hits == {}
    home = crawled.pages[f"{second.base}/home/"]
    assert (home.status, home.depth, home.in_sitemap) == (200, 0, True)
    for path in ("/orphan/", "/own-orphan/"):
        orphan = crawled.pages[second.base + path]
        assert (orphan.status, orphan.in_sitemap, orphan.depth) == (200, True, 1)
    assert crawled.at("/").final_url == f"{second.base}/home/"
    stats = crawled.result.stats
    assert stats["redirect_host"] == second.base.removeprefix("http://")
    assert stats["skipped"]["sitemap_off_host"] == 1 and stats["skipped"]["off_host"] == 1
    assert stats["sitemap_files"]["skipped"] == {f"{third.base}/sitemap.xml": "sitemap_off_host"}
    assert second.hits["/robots.txt"] == 1 and second.hits["/named.xml"] == 1
    assert start.hits["/sitemap.xml"] == 1 and second.hits["/sitemap.xml"] == 1


def test_a_chain_of_hosts_is_refused(tmp_path: Path) -> None:
    """Start -> second host -> third host: the third is never requested; the crawl says why."""
    with serve(other_routes) as third:
        hop: Routes = {"/go": Route(status=302, headers={"Location": f"{third.base}/elsewhere/"})}
        with serve(lambda base: hop) as second:
            first: Routes = {"/": Route(status=301, headers={"Location": f"{second.base}/go"})}
            with serve(lambda base: first) as start:
                config = CrawlConfig(start.base + "/", **LIMITS)  # type: ignore[arg-type]
                with pytest.raises(CrawlError) as info:
                    run_crawl(config, tmp_path)
    assert str(info.value) == (
        f"no HTML page found: {start.base}/ redirects to {third.base}/elsewhere/, a second host"
        f" besides {second.base.removeprefix('http://')} (a start URL's redirects may add one host)"
    )
    assert third.hits == {} and second.hits["/go"] == 1
    stats = json.loads((tmp_path / "stats.json").read_text(encoding="utf-8"))
    assert stats["skipped"]["second_redirect_host"] == 1 and "off_host" not in stats["skipped"]
    records = {
        json.loads(line)["url"]: json.loads(line)
        for line in (tmp_path / "pages.jsonl").read_text(encoding="utf-8").splitlines()
    }
    assert set(records) == {f"{start.base}/", f"{second.base}/go"}
    assert records[f"{start.base}/"]["redirect_chain"] == [
        f"{start.base}/",
        f"{second.base}/go",
        f"{third.base}/elsewhere/",
    ]


@contextmanager
def plain_static_server(root: Path) -> Iterator[ServedSite]:
    """A folder served as it is (no placeholder replaced), as `python -m http.server` would."""

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

    handler = functools.partial(Quiet, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield ServedSite(f"http://127.0.0.1:{server.server_address[1]}", Counter(), [0])
    finally:
        server.shutdown()
        server.server_close()


def test_demo_site_on_a_plain_static_server(tmp_path: Path) -> None:
    """Its robots.txt says `Sitemap: __BASE_URL__/sitemap.xml` (a relative URL once unfilled):
    the crawl records that sitemap as missing and goes on."""
    root = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
    with plain_static_server(root) as site:
        crawled = crawl(site, tmp_path, **{**LIMITS, "max_pages": 8})
    assert crawled.at("/").status == 200 and crawled.result.stats["html_pages"] >= 5
    files = crawled.result.stats["sitemap_files"]
    assert files["failed"] == {f"{site.base}/__BASE_URL__/sitemap.xml": "HTTP 404"}
    assert files["read"] == 1  # the default /sitemap.xml
