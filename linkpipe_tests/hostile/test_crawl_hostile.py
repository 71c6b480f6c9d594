"""A hostile site crawled by `linkpipe crawl` into a database that already holds a crawl: every
bad answer (redirect loops and endless chains, a 5 MB page, binary bodies, a compressed body that
inflates past the size cap, unknown charsets, NUL bytes, a server that stalls or hangs up, a
garbage status line, odd link schemes, robots.txt with relative and garbage sitemap lines, a
sitemap of 100,000 junk lines) becomes a recorded outcome on its page, the crawl stays within its
bounds, and the crawl already stored keeps every row. Start URLs the crawler cannot use fail in
one line."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest

from linkpipe.cli.main import main
from linkpipe_tests.hostile.conftest import (
    Route,
    crawl_rows,
    run_cli,
    serve_routes,
    table_counts,
)

MAX_PAGES = 150
CHAIN_HOPS = 25
MAX_BYTES = 1_000_000
TIMEOUT_S = 5.0  # generous: a loaded machine parses the 5 MB page slowly
CRAWL_ID = "hostile"
SETTINGS = f"""[crawl]
max_pages = {MAX_PAGES}
max_bytes = {MAX_BYTES}
request_timeout_s = {TIMEOUT_S}
total_time_s = 60
retry_times = 0
concurrency = 8
"""
HREFS = [
    "/loop-a", "/chain/1", "/redir-ftp", "/redir-garbage", "/redir-offsite", "/big", "/binary",
    "/binary-as-html", "/inflates", "/bad-charset", "/nul", "/slow", "/cut-short",
    "/garbage-status", "/error-500", "/many-links", "/deep", "/empty", "/refresh-self",
    "/private/secret", "/%zz", "mailto:a@b.test", "javascript:alert(1)", "data:text/html,hi",
    "file:///etc/passwd", "http://u:p@{host}/userinfo", "http://bücher.example/",
    "ftp://x.test/", "//{host}/protocol-relative",
]  # fmt: skip


def page(title: str, body: str = "") -> bytes:
    text = f"<!doctype html><html><head><title>{title}</title></head><body>{body}</body></html>"
    return text.encode("utf-8")


def hostile_routes(base: str) -> Callable[[str], Route | None]:
    host = base.split("//")[1]
    links = " ".join(f'<a href="{h.format(host=host)}">link {i}</a>' for i, h in enumerate(HREFS))
    robots = (
        "User-agent: *\nDisallow: /private/\nSitemap: /sitemap.xml\nSitemap: ::garbage::\n"
        "Sitemap: javascript:alert(1)\nSitemap: http://other.invalid/sitemap.xml\n"
        "\x00\x01 not a robots line\nSitemap: /" + "x" * 10_000 + "\n"
    )
    junk = "".join(f"<url><loc>junk line {i}</loc></url>\n" for i in range(100_000))
    sitemap = f"<urlset><url><loc>{base}/from-sitemap/</loc></url>\n{junk}</urlset>"
    inflating = gzip.compress(b"<html><body>" + b"<p>a</p>" * (6 * MAX_BYTES // 8), 9)
    fixed: dict[str, Route] = {
        "/robots.txt": Route(robots.encode(), headers={"Content-Type": "text/plain"}),
        "/sitemap.xml": Route(sitemap.encode(), headers={"Content-Type": "application/xml"}),
        "/": Route(page("Home", f"<main><p>{links}</p></main>")),
        "/from-sitemap/": Route(page("From the sitemap")),
        "/loop-a": Route(status=301, headers={"Location": "/loop-b"}),
        "/loop-b": Route(status=301, headers={"Location": "/loop-a"}),
        "/redir-ftp": Route(status=302, headers={"Location": "ftp://x.test/file"}),
        "/redir-garbage": Route(status=302, headers={"Location": "http://[::1"}),
        "/redir-offsite": Route(status=302, headers={"Location": "http://other.invalid/"}),
        "/big": Route(page("Big", "<p>" + "word " * (5 * 1024 * 1024 // 5) + "</p>")),
        "/binary": Route(bytes(range(256)) * 800, headers={"Content-Type": "application/octet-stream"}),
        "/binary-as-html": Route(bytes(range(256)) * 800),
        "/inflates": Route(inflating, headers={"Content-Type": "text/html", "Content-Encoding": "gzip"}),
        "/bad-charset": Route(page("Caf\xe9").replace("é".encode(), b"\xe9"), headers={"Content-Type": "text/html; charset=x-no-such-charset"}),
        "/nul": Route(page("N\x00ul", "<p>a\x00b</p>")),
        "/slow": Route(page("Slow"), delay_s=TIMEOUT_S + 3),
        "/cut-short": Route(raw=b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<html>short"),
        "/garbage-status": Route(raw=b"HTTP/1.1 abc nonsense\r\n\r\n<html></html>"),
        "/error-500": Route(page("Oops"), status=500),
        "/many-links": Route(page("Many", "".join(f'<a href="/trap/{i}">t{i}</a>' for i in range(40)))),
        "/deep": Route(page("Deep", "<div>" * 30_000 + "deep text" + "</div>" * 30_000)),
        "/empty": Route(b""),
        "/refresh-self": Route(b'<html><head><meta http-equiv="refresh" content="0; url=/refresh-self"></head></html>'),
        "/private/secret": Route(page("Secret")),
    }  # fmt: skip

    def route(path: str) -> Route | None:
        if path.startswith("/chain/") and int(path[7:]) < CHAIN_HOPS:
            return Route(status=302, headers={"Location": f"/chain/{int(path[7:]) + 1}"})
        if path.startswith("/chain/"):
            return Route(page("End of the chain"))
        if path.startswith("/trap/"):
            return Route(page("Trap"))
        return fixed.get(path)

    return route


@dataclass
class Crawled:
    base: str
    status: int
    err: str
    seconds: float
    pages: dict[str, dict[str, Any]]  # path (or full URL off the base) -> crawl_pages row
    targets: set[str]  # crawl_links targets
    stats: dict[str, Any]
    kept_before: tuple[dict[str, int], list[tuple[object, ...]]]
    db: Path

    def at(self, path: str) -> dict[str, Any]:
        assert path in self.pages, f"no record of {path}: {sorted(self.pages)[:40]}"
        return self.pages[path]


def load_crawl(db: Path, base: str) -> tuple[dict[str, dict[str, Any]], set[str], dict[str, Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute("SELECT * FROM crawl_pages WHERE crawl_id = ?", [CRAWL_ID])
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
        targets = {
            r[0]
            for r in con.execute(
                "SELECT target_url FROM crawl_links WHERE crawl_id = ?", [CRAWL_ID]
            ).fetchall()
        }
        (stats,) = con.execute(
            "SELECT crawl_stats FROM crawls WHERE crawl_id = ?", [CRAWL_ID]
        ).fetchone()
    finally:
        con.close()
    pages = {r["url"].removeprefix(base) or "/": r for r in rows}
    return pages, targets, json.loads(stats) if stats else {}


@pytest.fixture(scope="module")
def crawled(kept_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    """One `linkpipe crawl` of the hostile site into a copy of the kept database."""
    folder = tmp_path_factory.mktemp("hostile_crawl")
    db = folder / "kept.duckdb"
    shutil.copyfile(kept_template, db)
    (folder / "settings.toml").write_text(SETTINGS, encoding="utf-8")
    kept_before = (table_counts(db), crawl_rows(db))
    with serve_routes(hostile_routes) as base:
        started = time.monotonic()
        argv = ["crawl", base + "/", "--db", str(db), "--crawl-id", CRAWL_ID]
        outcome = run_uncaptured(argv + ["--config", str(folder / "settings.toml")])
        seconds = time.monotonic() - started
    pages, targets, stats = load_crawl(db, base)
    yield Crawled(base, outcome[0], outcome[1], seconds, pages, targets, stats, kept_before, db)


def run_uncaptured(argv: list[str]) -> tuple[int, str]:
    """``linkpipe ARGV`` in this process for a module-scoped fixture (capsys is per test):
    exit status and standard error."""
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        status = main(argv)
    return status, err.getvalue()


# path -> (expected one-line outcome, checks on its crawl_pages row)
PAGE_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("/", "the start page is read", {"status": 200, "title": "Home", "error": ""}),
    ("/loop-a", "a redirect loop is recorded as one", {"error": "redirect_loop", "redirect_loop": True}),
    ("/redir-ftp", "a redirect to ftp: is kept as the page's own 302", {"status": 302, "final_url": "{base}/redir-ftp"}),
    ("/redir-garbage", "a redirect to a broken URL is kept as the page's own 302", {"status": 302, "final_url": "{base}/redir-garbage"}),
    ("/redir-offsite", "a redirect off the site is recorded, not followed", {"status": 302, "final_url": "http://other.invalid/"}),
    ("/big", "a 5 MB page is cut at max_bytes and flagged", {"status": 200, "title": "Big", "truncated": True, "byte_size": MAX_BYTES}),
    ("/binary", "a binary body is recorded by type and size, not parsed", {"status": 200, "content_type": "application/octet-stream", "title": "", "html_z": None}),
    ("/binary-as-html", "binary bytes sent as HTML are decoded without a crash", {"status": 200, "content_type": "text/html", "error": ""}),
    ("/inflates", "a gzip body that inflates to 6 MB stops at max_bytes", {"status": 200, "truncated": True, "byte_size": MAX_BYTES}),
    ("/bad-charset", "an unknown charset falls back to detection", {"status": 200, "title": "Café"}),
    ("/nul", "NUL bytes become U+FFFD", {"status": 200, "title": "N\ufffdul"}),
    ("/slow", "a page that stalls past the timeout is a timeout", {"status": 0, "error": "timeout"}),
    ("/cut-short", "a body shorter than its Content-Length is a lost connection", {"status": 0, "error": "connection_lost"}),
    ("/garbage-status", "a garbage status line is a lost connection", {"status": 0, "error": "connection_lost"}),
    ("/error-500", "a server error keeps its status", {"status": 500, "title": ""}),
    ("/deep", "30,000 nested elements parse", {"status": 200, "title": "Deep"}),
    ("/empty", "an empty HTML body is a page of 0 bytes", {"status": 200, "byte_size": 0, "title": ""}),
    ("/refresh-self", "a meta refresh to itself is no loop and no crash", {"status": 200, "error": ""}),
    ("/private/secret", "a robots.txt Disallow is recorded, not fetched", {"status": 0, "robots_disallowed": True, "error": "robots_disallowed"}),
    ("/%25zz", "a broken percent escape is escaped and fetched", {"status": 404}),
    ("/protocol-relative", "a protocol-relative link is resolved on the site", {"status": 404}),
    ("/from-sitemap/", "a page listed in the sitemap (found through a relative robots.txt line) is crawled", {"status": 200, "in_sitemap": True}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "outcome", "expected"), PAGE_CASES, ids=[c[0] for c in PAGE_CASES]
)
def test_hostile_page_is_recorded(
    crawled: Crawled, path: str, outcome: str, expected: dict
) -> None:
    row = crawled.at(path)
    got = {key: row[key] for key in expected}
    assert got == {
        k: v.format(base=crawled.base) if isinstance(v, str) else v for k, v in expected.items()
    }, outcome


def test_the_crawl_finishes_in_bounds_and_in_one_line(crawled: Crawled) -> None:
    assert crawled.status == 0, crawled.err
    assert "Traceback" not in crawled.err and "linkpipe: error" not in crawled.err
    assert crawled.seconds < 90
    fetched = [
        p
        for p in crawled.pages.values()
        if p["status"] or p["error"] not in ("", "robots_disallowed", "trap")
    ]
    assert len(fetched) <= MAX_PAGES
    assert crawled.stats["skipped"]["sitemap_bad_url"] >= 100_000  # the junk sitemap's lines


def test_the_kept_crawl_keeps_every_row(crawled: Crawled) -> None:
    counts, rows = crawled.kept_before
    assert crawl_rows(crawled.db) == rows
    after = table_counts(crawled.db)
    assert after["link_decisions"] == counts["link_decisions"]
    assert after["crawls"] == counts["crawls"] + 1


def test_a_long_redirect_chain_is_followed_hop_by_hop(crawled: Crawled) -> None:
    chain = crawled.at("/chain/1")
    assert chain["status"] == 302 and len(chain["redirect_chain"]) == CHAIN_HOPS
    assert chain["final_url"] == f"{crawled.base}/chain/{CHAIN_HOPS}"
    assert crawled.at(f"/chain/{CHAIN_HOPS}")["title"] == "End of the chain"


def test_links_with_other_schemes_are_skipped_and_an_idn_host_is_encoded(crawled: Crawled) -> None:
    assert not any(
        t.startswith(("mailto:", "javascript:", "data:", "file:", "ftp:")) for t in crawled.targets
    )
    assert "http://xn--bcher-kva.example/" in crawled.targets
    assert crawled.stats["skipped"]["non_crawlable_scheme"] >= 5


def test_robots_sitemap_lines_stay_on_the_site(crawled: Crawled) -> None:
    sitemaps = crawled.stats["sitemap_files"]
    assert sitemaps["read"] >= 1  # the relative /sitemap.xml
    assert not any(
        "other.invalid" in url or url.startswith("javascript") for url in sitemaps["failed"]
    )
    assert crawled.stats["skipped"]["sitemap_off_host"] == 1


def test_junk_sitemap_locs_are_not_crawled(crawled: Crawled) -> None:
    assert not [path for path in crawled.pages if "junk" in path]


def test_a_link_with_a_password_gets_a_clear_reason(crawled: Crawled) -> None:
    assert not [url for url in crawled.pages if "@" in url]  # never fetched nor recorded
    assert crawled.stats["skipped"]["credentials_in_url"] >= 1


def test_a_broken_ipv6_link_does_not_fail_the_crawl(kept_db: Path, capsys) -> None:
    body = page(
        "Home", '<main><p>Some text and <a href="http://[::1">a broken link</a>.</p></main>'
    )
    with serve_routes(lambda base: {"/": Route(body)}.get) as base:
        outcome = run_cli(capsys, ["crawl", base + "/", "--db", str(kept_db), "--max-pages", "3"])
    assert outcome.status == 0, outcome.err.strip().splitlines()[-1:]


def robots_disallow_all(base: str) -> Callable[[str], Route | None]:
    routes = {
        "/robots.txt": Route(
            b"User-agent: *\nDisallow: /\n", headers={"Content-Type": "text/plain"}
        ),
        "/": Route(page("Home")),
    }
    return routes.get


def binary_home(base: str) -> Callable[[str], Route | None]:
    return {"/": Route(bytes(range(256)), headers={"Content-Type": "application/octet-stream"})}.get


@pytest.mark.parametrize(
    ("routes", "message"),
    [
        (robots_disallow_all, r"{base}/ is disallowed by robots\.txt for user agent 'linkpipe'"),
        (binary_home, r"no HTML page found: {base}/ is application/octet-stream"),
    ],
    ids=["robots-disallow-all", "start-page-binary"],
)
def test_an_unusable_start_page_fails_in_one_line_and_keeps_the_stored_crawl(
    routes, message: str, kept_db: Path, tmp_path: Path, capsys
) -> None:
    before = table_counts(kept_db), crawl_rows(kept_db)
    with serve_routes(routes) as base:
        outcome = run_cli(capsys, ["crawl", base + "/", "--db", str(kept_db), "--max-pages", "5"])
    lines = outcome.err.strip().splitlines()
    assert outcome.status == 1 and "Traceback" not in outcome.err
    expected = r"linkpipe: error: crawl_export failed: .*" + message.format(base=base)
    assert re.fullmatch(expected, lines[-1]), lines
    assert crawl_rows(kept_db) == before[1]
    con = duckdb.connect(str(kept_db), read_only=True)
    latest = con.execute("SELECT crawl_id FROM v_latest_crawl").fetchall()
    runs = con.execute("SELECT status FROM v_crawl_runs WHERE crawl_id <> 'kept'").fetchall()
    con.close()
    assert latest == [("kept",)]  # the failed crawl is listed as failed, never as latest
    assert runs == [("failed",)]


def empty_pages(base: str) -> Callable[[str], Route | None]:
    nav = '<nav><a href="/a">A</a> <a href="/b">B</a></nav>'
    return {p: Route(page(f"Page {p}", nav)) for p in ("/", "/a", "/b")}.get


def test_a_site_with_no_page_to_use_fails_in_one_line_with_the_reasons(
    kept_db: Path, capsys
) -> None:
    with serve_routes(empty_pages) as base:
        argv = ["run", base + "/", "--db", str(kept_db), "--max-pages", "5", "--model", "hashing-64"]
        outcome = run_cli(capsys, argv)
    last = outcome.err.strip().splitlines()[-1]
    assert outcome.status == 1 and "Traceback" not in outcome.err
    assert re.fullmatch(
        r"linkpipe: error: ann_index failed: ValueError: crawl '.+' has no indexable page with "
        r"text: 3 pages crawled \(thin 3\); see v_excluded_pages",
        last,
    ), last
    con = duckdb.connect(str(kept_db), read_only=True)
    latest = con.execute("SELECT crawl_id FROM v_latest_crawl").fetchall()
    runs = con.execute("SELECT status FROM v_crawl_runs WHERE crawl_id <> 'kept'").fetchall()
    con.close()
    assert latest == [("kept",)] and runs == [("failed",)]
