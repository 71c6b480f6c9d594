"""End-to-end crawls of small sites served on loopback; assertions on the records produced."""

from __future__ import annotations

import gzip
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import brotli
import pytest

from linkpipe.lib.crawl import CrawlConfig, CrawlError, CrawlResult, run_crawl
from linkpipe.lib.records import LinkRecord, PageRecord


@dataclass
class Route:
    """What the test server answers for one path."""

    body: bytes | str = b""
    status: int = 200
    headers: dict[str, str] = field(
        default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"}
    )
    delay_s: float = 0.0
    encode: str = ""  # "gzip" or "br": compress when the client accepts it
    etag: str = ""  # answer 304 to a matching If-None-Match


Routes = dict[str, Route | Callable[[str], Route]]


@dataclass
class ServedSite:
    base: str
    hits: Counter[str]
    bytes_sent: list[int]


@contextmanager
def serve(routes_for: Callable[[str], Routes]) -> Iterator[ServedSite]:
    """Serve ``routes_for(base_url)`` on 127.0.0.1; unknown paths get a 404."""
    hits: Counter[str] = Counter()
    sent = [0]
    holder: dict[str, Routes] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

        def do_GET(self) -> None:  # noqa: N802
            hits[self.path] += 1
            route = holder["routes"].get(self.path)
            if callable(route):
                route = route(self.path)
            if route is None:
                route = Route(body="<html><body>not found</body></html>", status=404)
            if route.delay_s:
                time.sleep(route.delay_s)
            body = route.body.encode("utf-8") if isinstance(route.body, str) else route.body
            headers = dict(route.headers)
            if route.etag:
                headers["ETag"] = route.etag
                if self.headers.get("If-None-Match") == route.etag:
                    self._send(304, headers, b"")
                    return
            accepted = self.headers.get("Accept-Encoding", "")
            if route.encode == "gzip" and "gzip" in accepted:
                body, headers["Content-Encoding"] = gzip.compress(body), "gzip"
            elif route.encode == "br" and "br" in accepted:
                body, headers["Content-Encoding"] = brotli.compress(body), "br"
            self._send(route.status, headers, body)

        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            try:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                sent[0] += len(body)
            except OSError:  # the crawler gave up (timeout)
                pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128  # the default backlog of 5 drops SYNs under 16 concurrent connects

        def handle_error(self, request: object, client_address: object) -> None:
            return

    server = Server(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    holder["routes"] = routes_for(base)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield ServedSite(base=base, hits=hits, bytes_sent=sent)
    finally:
        server.shutdown()
        server.server_close()


def page(title: str, body: str = "", head: str = "") -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>{body}</body></html>"
    )


def calendar(path: str) -> Route:
    month = int(path.rstrip("/").rsplit("/", 1)[1])
    return Route(page(f"Month {month}", f'<a href="/calendar/2024/{month + 1}/">next month</a>'))


def big_page(_: str) -> Route:
    return Route(page("Big", "<p>" + "word " * 20_000 + "</p>"))


SITEMAP_INDEX = """<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>{base}/sitemap-pages.xml.gz</loc></sitemap>
<sitemap><loc>{base}/sitemap-more.xml</loc></sitemap>
</sitemapindex>"""
URLSET = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>"""


def main_routes(base: str) -> Routes:
    home_body = """
    <nav><a href="/about/">About us</a> <a href="/blog/">Blog</a></nav>
    <main><p>Start with <a href="/old">the old page</a>, <a href="/loop-a">a loop</a>,
    <a href="/refresh/">a refresh</a>, <a href="/missing/">a missing page</a>,
    <a href="/flaky/">a flaky page</a>, <a href="/slow/">a slow page</a>,
    <a href="/calendar/2024/1/">the calendar</a>, <a href="/latin/">latin</a>,
    <a href="/latin-nodecl/">latin undeclared</a>, <a href="/gz/">gzip</a>, <a href="/br/">brotli</a>,
    <a href="/big/">big</a>, <a href="http://example.org/page">elsewhere</a>,
    <a href="mailto:team@example.com">mail us</a>, <a href="javascript:void(0)">js</a>,
    <a href="tel:+123">call</a>, <a href="/private/secret">secret</a>, <a href="/nobody/">nobody</a>,
    <a href="/file.pdf">a pdf</a>, <a href="/about/?utm_source=home#team">about again</a>,
    <a href="/campaign/?utm_source=news&amp;b=2&amp;a=1#top">campaign</a></p></main>
    """
    latin = page(
        "Café – crème",
        "<p>Déjà vu à la française, élève naïve.</p>",
        '<meta charset="windows-1252">',
    )
    latin_nodecl = (
        "<html><head><title>Bonjour</title></head><body><p>Le café est très bon. Déjà vu, à la "
        "française, élève naïve, où est la crème brûlée? Ça coûte très cher.</p></body></html>"
    )
    gz_pages = URLSET.format(
        entries=f"<url><loc>{base}/orphan/</loc><lastmod>2024-05-01</lastmod></url>"
        f"<url><loc>{base}/about/</loc><lastmod>2024-04-01</lastmod></url>"
    )
    return {
        "/robots.txt": Route(
            "User-agent: *\nDisallow: /nobody/\n\nUser-agent: linkpipe\nDisallow: /private/\n\n"
            f"Sitemap: {base}/sitemap_index.xml\n",
            headers={"Content-Type": "text/plain"},
        ),
        "/sitemap_index.xml": Route(
            SITEMAP_INDEX.format(base=base), headers={"Content-Type": "application/xml"}
        ),
        "/sitemap-pages.xml.gz": Route(
            gzip.compress(gz_pages.encode()), headers={"Content-Type": "application/gzip"}
        ),
        "/sitemap-more.xml": Route(
            URLSET.format(entries=f"<url><loc>{base}/orphan2/</loc></url>"),
            headers={"Content-Type": "application/xml"},
        ),
        "/": Route(page("Home", home_body)),
        "/about/": Route(
            page(
                "About",
                '<h1>About  us</h1><a href="/">Home</a>',
                '<link rel="canonical" href="/about/?ref=x">',
            ),
            headers={"Content-Type": "text/html; charset=utf-8", "X-Robots-Tag": "NoArchive"},
        ),
        "/blog/": Route(page("Blog", '<a href="/about/">About</a>')),
        "/old": Route(status=301, headers={"Location": "/mid"}),
        "/mid": Route(status=302, headers={"Location": f"{base}/about/"}),
        "/loop-a": Route(status=301, headers={"Location": "/loop-b"}),
        "/loop-b": Route(status=301, headers={"Location": "/loop-a"}),
        "/refresh/": Route(
            page("Moved", head='<meta http-equiv="refresh" content="0; url=/about/">')
        ),
        "/flaky/": Route(page("Oops"), status=500),
        "/slow/": Route(page("Slow"), delay_s=4.0),
        **{f"/calendar/2024/{m}/": calendar for m in range(1, 30)},
        "/latin/": Route(latin.encode("cp1252"), headers={"Content-Type": "text/html"}),
        "/latin-nodecl/": Route(
            latin_nodecl.encode("cp1252"), headers={"Content-Type": "text/html"}
        ),
        "/gz/": Route(page("Gzipped", "<p>" + "zip " * 500 + "</p>"), encode="gzip"),
        "/br/": Route(page("Brotli", "<p>" + "bro " * 500 + "</p>"), encode="br"),
        "/big/": big_page,
        "/private/secret": Route(page("Secret")),
        "/nobody/": Route(page("Nobody")),
        "/file.pdf": Route(b"%PDF-1.4 fake", headers={"Content-Type": "application/pdf"}),
        "/orphan/": Route(page("Orphan", '<a href="/orphan-child/">child</a>')),
        "/orphan-child/": Route(page("Orphan child")),
        "/orphan2/": Route(page("Orphan 2")),
        "/campaign/?a=1&b=2": Route(page("Campaign")),
    }


@dataclass
class Crawled:
    site: ServedSite
    result: CrawlResult
    pages: dict[str, PageRecord]
    links: list[LinkRecord]
    progress: list[tuple[int, int]]

    def at(self, path: str) -> PageRecord:
        return self.pages[self.site.base + path]


def crawl(site: ServedSite, tmp: Path, **overrides: object) -> Crawled:
    progress: list[tuple[int, int]] = []
    settings = {"max_pages": 100, "request_timeout_s": 1.5, "total_time_s": 20.0, "retry_times": 1}
    config = CrawlConfig(site.base + "/", **{**settings, **overrides})  # type: ignore[arg-type]
    result = run_crawl(config, tmp, progress=lambda f, q: progress.append((f, q)))
    pages: dict[str, PageRecord] = {}
    for record in result.iter_pages():
        assert record.url not in pages, f"two records for {record.url}"
        pages[record.url] = record
    return Crawled(site, result, pages, list(result.iter_links()), progress)


@pytest.fixture(scope="module")
def main_crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    with serve(main_routes) as site:
        yield crawl(site, tmp_path_factory.mktemp("main"), trap_cap_per_pattern=5, max_bytes=20_000)


def test_robots_disallowed_url_is_recorded_not_fetched(main_crawl: Crawled) -> None:
    record = main_crawl.at("/private/secret")
    assert (record.status, record.robots_disallowed, record.error) == (0, True, "robots_disallowed")
    assert main_crawl.site.hits["/private/secret"] == 0
    # the linkpipe group of robots.txt applies, not the "*" group
    assert main_crawl.at("/nobody/").status == 200
    assert main_crawl.result.stats["skipped"]["robots"] == 1


def test_redirect_chain_recorded_hop_by_hop(main_crawl: Crawled) -> None:
    base = main_crawl.site.base
    old, mid, about = main_crawl.at("/old"), main_crawl.at("/mid"), main_crawl.at("/about/")
    assert old.status == 301 and mid.status == 302
    assert old.redirect_chain == [f"{base}/old", f"{base}/mid", f"{base}/about/"]
    assert old.final_url == mid.final_url == f"{base}/about/"
    assert mid.redirect_chain == [f"{base}/mid", f"{base}/about/"]
    assert (about.status, about.redirect_chain, about.title, about.h1) == (
        200,
        [],
        "About",
        "About us",
    )
    assert main_crawl.site.hits["/about/"] == 1


def test_redirect_loop_detected(main_crawl: Crawled) -> None:
    base = main_crawl.site.base
    loop_a, loop_b = main_crawl.at("/loop-a"), main_crawl.at("/loop-b")
    assert loop_a.redirect_loop and loop_b.redirect_loop
    assert loop_a.error == loop_b.error == "redirect_loop"
    assert loop_a.redirect_chain == [f"{base}/loop-a", f"{base}/loop-b", f"{base}/loop-a"]
    assert main_crawl.site.hits["/loop-a"] == 1


def test_meta_refresh_is_a_hop(main_crawl: Crawled) -> None:
    base = main_crawl.site.base
    record = main_crawl.at("/refresh/")
    assert record.status == 200 and record.title == "Moved"
    assert record.redirect_chain == [f"{base}/refresh/", f"{base}/about/"]
    assert record.final_url == f"{base}/about/"


def test_error_statuses_retries_and_timeouts(main_crawl: Crawled) -> None:
    assert main_crawl.at("/missing/").status == 404
    flaky = main_crawl.at("/flaky/")
    assert (flaky.status, flaky.html) == (500, "")
    assert main_crawl.site.hits["/flaky/"] == 2  # retry_times=1
    slow = main_crawl.at("/slow/")
    assert (slow.status, slow.error, slow.final_url) == (0, "timeout", "")
    stats = main_crawl.result.stats
    assert stats["errors"]["timeout"] == 1 and stats["retries"] >= 2
    assert stats["status"]["404"] == 1 and stats["status"]["500"] == 1


def test_spider_trap_capped_per_pattern(main_crawl: Crawled) -> None:
    months = [p for p in main_crawl.pages.values() if "/calendar/" in p.url]
    fetched = sorted(int(p.url.rstrip("/").rsplit("/", 1)[1]) for p in months if p.status == 200)
    assert fetched == [1, 2, 3, 4, 5]
    trapped = [p for p in months if p.error == "trap"]
    assert [p.url for p in trapped] == [main_crawl.site.base + "/calendar/2024/6/"]
    assert trapped[0].status == 0 and main_crawl.site.hits["/calendar/2024/6/"] == 0
    assert main_crawl.result.stats["skipped"]["trap"] == 1


def test_legacy_encodings_decoded(main_crawl: Crawled) -> None:
    latin = main_crawl.at("/latin/")
    assert (latin.title, latin.charset) == ("Café – crème", "windows-1252")
    assert "Déjà vu à la française" in latin.html
    undeclared = main_crawl.at("/latin-nodecl/")
    assert undeclared.charset == "windows-1252"
    assert "Le café est très bon" in undeclared.html and "crème brûlée" in undeclared.html


def test_compressed_bodies_and_truncation(main_crawl: Crawled) -> None:
    gz, br = main_crawl.at("/gz/"), main_crawl.at("/br/")
    assert gz.title == "Gzipped" and gz.byte_size == len(
        page("Gzipped", "<p>" + "zip " * 500 + "</p>")
    )
    assert br.title == "Brotli" and "bro bro" in br.html
    big = main_crawl.at("/big/")
    assert big.truncated and big.byte_size == 20_000 and big.title == "Big"
    assert main_crawl.result.stats["truncated"] == 1


def test_scope_external_and_non_crawlable_links(main_crawl: Crawled) -> None:
    base = main_crawl.site.base
    home_links = [link for link in main_crawl.links if link.source_url == base + "/"]
    external = [link for link in home_links if not link.internal]
    assert [(link.target_url, link.anchor_text) for link in external] == [
        ("http://example.org/page", "elsewhere")
    ]
    assert "http://example.org/page" not in main_crawl.pages
    assert not any(
        link.target_url.startswith(("mailto:", "javascript:", "tel:")) for link in main_crawl.links
    )
    stats = main_crawl.result.stats
    assert stats["skipped"]["off_host"] == 1 and stats["skipped"]["non_crawlable_scheme"] == 3
    # tracking params and fragments normalized away: the second /about/ link is the same URL
    assert [link.target_url for link in home_links].count(base + "/about/") == 2
    positions = {link.anchor_text: link.position for link in home_links}
    assert positions["About us"] == "navigation" and positions["the old page"] == "content"


def test_normalized_url_keeps_original(main_crawl: Crawled) -> None:
    campaign = main_crawl.at("/campaign/?a=1&b=2")
    assert campaign.title == "Campaign"
    assert campaign.original_url == main_crawl.site.base + "/campaign/?utm_source=news&b=2&a=1#top"


def test_non_html_recorded_not_parsed(main_crawl: Crawled) -> None:
    pdf = main_crawl.at("/file.pdf")
    assert (pdf.status, pdf.content_type, pdf.html, pdf.content_hash) == (
        200,
        "application/pdf",
        "",
        "",
    )
    assert not any(link.source_url == pdf.url for link in main_crawl.links)


def test_sitemap_seeding(main_crawl: Crawled) -> None:
    orphan, about = main_crawl.at("/orphan/"), main_crawl.at("/about/")
    assert (orphan.in_sitemap, orphan.sitemap_lastmod, orphan.depth, orphan.status) == (
        True,
        "2024-05-01",
        1,
        200,
    )
    assert (about.in_sitemap, about.sitemap_lastmod, about.depth) == (True, "2024-04-01", 1)
    assert main_crawl.at("/orphan2/").in_sitemap  # from the plain child of the sitemap index
    child = main_crawl.at("/orphan-child/")
    assert (child.in_sitemap, child.depth) == (False, 2)
    assert main_crawl.result.stats["sitemap_urls"] == 3


def test_page_fields_and_stats(main_crawl: Crawled) -> None:
    home = main_crawl.at("/")
    assert home.depth == 0 and home.status == 200 and home.content_type == "text/html"
    assert len(home.content_hash) == 40 and home.fetched_at.endswith("+00:00")
    assert main_crawl.at("/blog/").depth == 1 and main_crawl.at("/calendar/2024/3/").depth == 3
    stats = main_crawl.result.stats
    assert stats["pages"] == len(main_crawl.pages) and stats["links"] == len(main_crawl.links)
    assert stats["bytes_received"] > 20_000 and stats["elapsed_s"] > 0
    assert main_crawl.progress and main_crawl.progress[-1][0] == stats["fetched"]


def template_routes(base: str) -> Routes:
    menu = "".join(f'<div class="item"><a href="/p{i}/">Menu {i}</a></div>' for i in range(5))
    routes: Routes = {}
    for i in range(12):
        text = f'<p>Page {i} talks about topic {i} and links to <a href="/p{(i + 1) % 12}/">topic {i + 1}</a>.</p>'
        routes[f"/p{i}/"] = Route(page(f"P{i}", f'<div class="box">{menu}</div>{text}'))
    routes["/"] = Route(
        page("Home", f'<div class="box">{menu}</div><p><a href="/p6/">start</a></p>')
    )
    return routes


def test_template_links_reclassified(tmp_path: Path) -> None:
    with serve(template_routes) as site:
        crawled = crawl(site, tmp_path, use_sitemap=False, obey_robots=False)
    assert len([p for p in crawled.pages.values() if p.status == 200]) == 13
    menu = [link for link in crawled.links if link.anchor_text.startswith("Menu")]
    in_text = [link for link in crawled.links if link.anchor_text.startswith("topic")]
    assert len(menu) == 65 and {link.position for link in menu} == {"navigation"}
    assert len(in_text) == 12 and {link.position for link in in_text} == {"content"}
    assert crawled.result.stats["template_links_reclassified"] == 65


def etag_routes(base: str) -> Routes:
    routes: Routes = {}
    for i in range(6):
        body = page(f"Doc {i}", f'<p>{"text " * 2000}<a href="/d{(i + 1) % 6}/">next doc</a></p>')
        routes[f"/d{i}/"] = Route(body, etag=f'"v{i}"')
    routes["/"] = Route(page("Home", '<a href="/d0/">docs</a>'), etag='"home"')
    return routes


def test_conditional_recrawl_returns_304_with_carried_content(tmp_path: Path) -> None:
    with serve(etag_routes) as site:
        first = crawl(site, tmp_path / "first", use_sitemap=False, obey_robots=False)
        previous = {
            p.url: {
                "etag": p.etag,
                "last_modified": p.last_modified,
                "content_hash": p.content_hash,
                "html": p.html,
            }
            for p in first.pages.values()
        }
        second = crawl(
            site, tmp_path / "second", use_sitemap=False, obey_robots=False, previous=previous
        )
    assert len(second.pages) == len(first.pages) == 7
    for url, record in second.pages.items():
        before = first.pages[url]
        assert (record.status, record.not_modified, record.etag) == (200, True, before.etag)
        assert (record.content_hash, record.html, record.title) == (
            before.content_hash,
            "",  # a 304 carries no HTML: the stage stores the previous crawl's again
            before.title,
        )
    as_pairs = sorted((link.source_url, link.target_url, link.anchor_text) for link in second.links)
    assert as_pairs == sorted(
        (link.source_url, link.target_url, link.anchor_text) for link in first.links
    )
    assert second.result.stats["not_modified"] == 7
    assert second.result.stats["bytes_received"] * 5 < first.result.stats["bytes_received"]


def test_limits_on_depth_and_pages(tmp_path: Path) -> None:
    with serve(template_routes) as site:
        shallow = crawl(site, tmp_path / "d", use_sitemap=False, obey_robots=False, max_depth=1)
        few = crawl(site, tmp_path / "p", use_sitemap=False, obey_robots=False, max_pages=3)
    assert max(p.depth for p in shallow.pages.values()) == 1 and len(shallow.pages) == 7
    assert shallow.result.stats["skipped"]["max_depth"] == 2
    assert len(few.pages) == 3 and few.result.stats["skipped"]["max_pages"] > 0


def test_total_time_limit_stops_the_crawl(tmp_path: Path) -> None:
    def routes(base: str) -> Routes:
        slow: Routes = {f"/s{i}/": Route(page(f"S{i}"), delay_s=0.25) for i in range(40)}
        return {
            "/": Route(page("Home", "".join(f'<a href="/s{i}/">s{i}</a>' for i in range(40)))),
            **slow,
        }

    with serve(routes) as site:
        crawled = crawl(
            site, tmp_path, use_sitemap=False, obey_robots=False, concurrency=2, total_time_s=1.5
        )
    stats = crawled.result.stats
    assert stats["finish_reason"] == "closespider_timeout"
    assert 3 <= stats["html_pages"] < 20 and crawled.at("/").status == 200


def slow_routes(base: str) -> Routes:
    slow: Routes = {
        f"/s{i}/": Route(page(f"S{i}", '<a href="/">home</a>'), delay_s=0.1) for i in range(24)
    }
    return {
        "/": Route(page("Home", "".join(f'<a href="/s{i}/">s{i}</a>' for i in range(24)))),
        **slow,
    }


def test_job_dir_resumes_a_stopped_crawl(tmp_path: Path) -> None:
    options = {
        "use_sitemap": False,
        "obey_robots": False,
        "concurrency": 2,
        "job_dir": str(tmp_path / "job"),
    }
    with serve(slow_routes) as site:
        first = crawl(site, tmp_path / "out", total_time_s=0.6, **options)
        assert first.result.stats["finish_reason"] == "closespider_timeout"
        assert 1 < len(first.pages) < 25
        resumed = crawl(site, tmp_path / "out", **options)
    assert resumed.result.stats["finish_reason"] == "finished"
    # no duplicates, none lost
    assert len(resumed.pages) == 25 and resumed.result.stats["pages"] == 25
    assert all(p.status == 200 for p in resumed.pages.values())
    assert len(resumed.links) == 24 * 2 and site.hits["/s0/"] == 1


def host_routes(base: str) -> Routes:
    return {
        "/start": Route(status=301, headers={"Location": f"{base}/about/"}),
        "/about/": Route(page("About", '<a href="/">Home</a> <a href="/self">self</a>')),
        "/": Route(page("Home", '<a href="/about/">About</a>')),
        "/self": Route(status=302, headers={"Location": "/self"}),
    }


def test_start_redirect_to_another_host_extends_the_site(tmp_path: Path) -> None:
    with serve(host_routes) as site:
        local = site.base.replace("127.0.0.1", "localhost")
        result = run_crawl(
            CrawlConfig(local + "/start", use_sitemap=False, retry_times=0), tmp_path
        )
        pages = {p.url: p for p in result.iter_pages()}
    base = site.base
    start = pages[local + "/start"]
    assert (start.status, start.final_url) == (301, f"{base}/about/")
    assert pages[f"{base}/about/"].depth == 0  # a redirect hop is not a link hop
    assert pages[f"{base}/"].status == 200 and pages[f"{base}/"].depth == 1
    assert site.hits["/robots.txt"] == 2  # one per host
    own = pages[f"{base}/self"]
    assert own.redirect_loop and own.redirect_chain == [f"{base}/self", f"{base}/self"]


def test_unreachable_start_url_raises(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = CrawlConfig(f"http://127.0.0.1:{port}/", request_timeout_s=1.0, retry_times=0)
    with pytest.raises(
        CrawlError, match=rf"could not reach http://127.0.0.1:{port}/ : connection refused"
    ):
        run_crawl(config, tmp_path)


def test_start_url_without_html_raises(tmp_path: Path) -> None:
    with (
        serve(lambda base: {"/": Route(status=404)}) as site,
        pytest.raises(CrawlError, match="answered HTTP 404"),
    ):
        run_crawl(CrawlConfig(site.base + "/", retry_times=0), tmp_path)


def test_crawl_delay_of_robots_txt_is_honoured(tmp_path: Path) -> None:
    """Crawl-delay: one request at a time to the host, at least that many seconds apart."""
    seen: list[float] = []

    def timed(body: str) -> Callable[[str], Route]:
        def answer(path: str) -> Route:
            seen.append(time.monotonic())
            return Route(body)

        return answer

    def routes(base: str) -> Routes:
        links = "".join(f'<a href="/p{i}/">Page {i}</a>' for i in range(4))
        return {
            "/robots.txt": Route(
                "User-agent: *\nCrawl-delay: 0.4\n", headers={"Content-Type": "text/plain"}
            ),
            "/": timed(page("Home", links)),
            **{f"/p{i}/": timed(page(f"Page {i}")) for i in range(4)},
        }

    with serve(routes) as site:
        result = run_crawl(CrawlConfig(site.base + "/", use_sitemap=False), tmp_path)
    host = site.base.removeprefix("http://")
    assert result.stats["crawl_delay_s"] == {host: 0.4}
    assert len(seen) == 5 and result.stats["fetched"] == 5
    gaps = [b - a for a, b in zip(seen, seen[1:], strict=False)]
    assert min(gaps) >= 0.35, gaps


def test_crawl_delay_is_capped_and_ignored_without_robots(tmp_path: Path) -> None:
    routes: Routes = {
        "/robots.txt": Route("User-agent: *\nCrawl-delay: 60\n"),
        "/": Route(page("Home")),
    }
    with serve(lambda base: routes) as site:
        capped = run_crawl(CrawlConfig(site.base + "/", max_crawl_delay_s=0.2), tmp_path / "a")
        ignored = run_crawl(CrawlConfig(site.base + "/", obey_robots=False), tmp_path / "b")
    assert capped.stats["crawl_delay_s"] == {site.base.removeprefix("http://"): 0.2}
    assert ignored.stats["crawl_delay_s"] == {}


def test_crawl_delay_survives_a_resumed_crawl(tmp_path: Path) -> None:
    seen: list[tuple[str, float]] = []

    def routes(base: str) -> Routes:
        def timed(path: str) -> Route:
            seen.append((path, time.monotonic()))
            return Route(page(path, '<a href="/">home</a>'))

        links = "".join(f'<a href="/d{i}/">d{i}</a>' for i in range(6))
        return {
            "/robots.txt": Route("User-agent: *\nCrawl-delay: 0.3\n"),
            "/": Route(page("Home", links)),
            **{f"/d{i}/": timed for i in range(6)},
        }

    options = {"use_sitemap": False, "concurrency": 1, "job_dir": str(tmp_path / "job")}
    with serve(routes) as site:
        first = crawl(site, tmp_path / "out", total_time_s=0.8, **options)
        assert first.result.stats["finish_reason"] == "closespider_timeout"
        before = len(seen)
        resumed = crawl(site, tmp_path / "out", **options)
    assert 0 < before < 6 and len(seen) == 6 and site.hits["/robots.txt"] == 1
    assert resumed.result.stats["crawl_delay_s"] == {site.base.removeprefix("http://"): 0.3}
    after = [t for _, t in seen[before:]]
    assert min(b - a for a, b in zip(after, after[1:], strict=False)) >= 0.25
