"""A refresh's conditional requests sent before the spider (lib/crawl/revalidate.py): the pages
that answer 304 are taken as fetched with that answer, the crawl's records and links are those
of the spider's own conditional requests, a changed page is left to the spider, robots.txt is
read first, a Crawl-delay leaves the host to the spider, and so do a slow site past half the
crawl's time, an unreachable host, a closed network path and a configured proxy."""

from __future__ import annotations

from pathlib import Path

from linkpipe.lib.crawl import CrawlConfig
from linkpipe.lib.crawl.revalidate import MAX_CONNECTIONS, MAX_FAILURES, revalidate
from linkpipe.lib.records import PageRecord
from linkpipe_tests.lib.crawl.test_crawl import Crawled, Route, Routes, crawl, page, serve

TIMING = ("fetched_at", "response_ms")
STATE = {"edited": False, "robots": ""}


def _routes(base: str) -> Routes:
    routes: Routes = {}
    for i in range(6):
        body = page(f"Doc {i}", f'<p>{"words " * 300}<a href="/d{(i + 1) % 6}/">next doc</a></p>')
        routes[f"/d{i}/"] = Route(body, etag=f'"v{i}"')
    routes["/d2/"] = lambda _: Route(
        page("Doc 2", '<p>Edited. <a href="/d3/">next doc</a></p>' if STATE["edited"] else
             f'<p>{"words " * 300}<a href="/d3/">next doc</a></p>'),
        etag='"v2-edited"' if STATE["edited"] else '"v2"',
    )  # fmt: skip
    routes["/"] = Route(page("Home", '<a href="/d0/">docs</a>'), etag='"home"')
    routes["/robots.txt"] = lambda _: Route(STATE["robots"], headers={"Content-Type": "text/plain"})
    return routes


def _previous(first: Crawled) -> dict[str, dict[str, str]]:
    return {
        p.url: {"etag": p.etag, "content_hash": p.content_hash, "html": p.html}
        for p in first.pages.values()
        if p.html
    }


def _without_timing(record: PageRecord) -> dict[str, object]:
    return {k: v for k, v in vars(record).items() if k not in TIMING}


def test_a_refresh_takes_the_304s_it_revalidated_first(tmp_path: Path) -> None:
    STATE.update(edited=False, robots="User-agent: *\nDisallow: /private/\n")
    with serve(_routes) as site:
        first = crawl(site, tmp_path / "first", use_sitemap=False)
        STATE.update(edited=True, robots="User-agent: *\nDisallow: /d5/\n")
        previous = _previous(first)
        site.hits.clear()
        fast = crawl(site, tmp_path / "fast", use_sitemap=False, previous=previous)
        fast_hits = dict(site.hits)
        slow = crawl(
            site, tmp_path / "slow", use_sitemap=False, previous=previous, revalidate_first=False
        )
    assert len(first.pages) == 7 and fast.result.stats["revalidated_first"] == 5
    assert slow.result.stats["revalidated_first"] == 0
    assert {u: _without_timing(p) for u, p in fast.pages.items()} == {
        u: _without_timing(p) for u, p in slow.pages.items()
    }
    assert sorted(map(vars, fast.links), key=str) == sorted(map(vars, slow.links), key=str)
    # each unchanged page was requested once (by the client); the edited one by both; the one
    # robots.txt now disallows by neither
    assert fast_hits["/d0/"] == fast_hits["/"] == 1 and fast_hits["/d2/"] == 2
    assert "/d5/" not in fast_hits and fast.pages[site.base + "/d5/"].robots_disallowed
    d1, d2 = fast.pages[site.base + "/d1/"], fast.pages[site.base + "/d2/"]
    assert (d1.status, d1.not_modified, d1.etag, d1.depth) == (200, True, '"v1"', 2)
    assert (d2.not_modified, d2.etag, d2.title) == (False, '"v2-edited"', "Doc 2")
    assert fast_hits["/robots.txt"] == 2  # read by the client first, then by the spider
    assert fast.result.stats["requests"] == slow.result.stats["requests"] + 2


def test_a_crawl_delay_leaves_the_host_to_the_spider(tmp_path: Path) -> None:
    STATE.update(edited=False, robots="User-agent: *\nCrawl-delay: 2\n")
    with serve(_routes) as site:
        config = CrawlConfig(site.base + "/", request_timeout_s=2.0)
        requests = {site.base + "/d0/": {"If-None-Match": '"v0"'}}
        polite = revalidate(config, requests)
        STATE["robots"] = ""
        shown: list[tuple[int, int]] = []
        answered = revalidate(config, requests, lambda done, left: shown.append((done, left)))
        unreachable = revalidate(config, {"http://127.0.0.1:9/d0/": {"If-None-Match": '"v0"'}})
        late = revalidate(CrawlConfig(site.base + "/", total_time_s=1e-6), requests)
    assert polite.not_modified == {} and polite.requests == 1  # robots.txt only
    assert list(answered.not_modified) == [site.base + "/d0/"] and answered.requests == 2
    assert answered.not_modified[site.base + "/d0/"].headers["etag"] == '"v0"'
    assert shown == [(1, 0)]  # the progress of the one URL
    assert unreachable.not_modified == {} and unreachable.requests == 0
    assert late.not_modified == {} and late.requests == 1  # past half its time: robots.txt only


def test_no_direct_requests_through_a_proxy_or_a_closed_network(
    tmp_path: Path, monkeypatch
) -> None:
    dead = "http://127.0.0.1:9"  # nothing listens: every request fails at once
    requests = {f"{dead}/p{i}/": {"If-None-Match": f'"v{i}"'} for i in range(60)}
    closed = revalidate(CrawlConfig(dead + "/", obey_robots=False), requests)
    assert closed.not_modified == {} and closed.requests == 0
    assert MAX_FAILURES <= closed.failed <= MAX_FAILURES + MAX_CONNECTIONS  # then it gave up
    unreachable_robots = revalidate(CrawlConfig(dead + "/"), requests)
    assert unreachable_robots.failed == 1  # robots.txt only: the host is left to the spider
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    proxied = revalidate(CrawlConfig(dead + "/", obey_robots=False), requests)
    assert (proxied.requests, proxied.failed) == (0, 0)  # the spider goes through the proxy
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    bypassed = revalidate(CrawlConfig(dead + "/", obey_robots=False), requests)
    assert bypassed.failed >= MAX_FAILURES  # no proxy for this host: sent directly


def test_a_validator_that_cannot_be_sent_leaves_its_url_to_the_spider(tmp_path: Path) -> None:
    STATE.update(edited=False, robots="")
    with serve(_routes) as site:
        requests = {
            site.base + "/d3/": {"If-None-Match": '"v3"'},
            site.base + "/d1/": {"If-None-Match": '"v1"\r\nX-Injected: 1'},
            site.base + "/d0/": {"If-None-Match": '"v0"'},
            site.base + "/d2/": {"If-None-Match": '"stale"'},
        }
        answered = revalidate(CrawlConfig(site.base + "/", obey_robots=False), requests)
    # in the order asked; the broken validator never sent, and not counted as a failure
    assert list(answered.not_modified) == [site.base + "/d3/", site.base + "/d0/"]
    assert (answered.requests, answered.failed) == (3, 0)
    assert "/d1/" not in site.hits and site.hits["/d2/"] == 1
