"""A page that answers 304 takes the previous crawl's stored parse (lib/crawl/stored_parse.py)
instead of being parsed again: the same records and links as a parse of its HTML, in the same
order; a parse made with another key is not used."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

from linkpipe.lib.crawl.stored_parse import StoredParse, decode_parse, parse_key
from linkpipe.lib.html.parse import parse_page
from linkpipe_tests.lib.crawl.test_crawl import Crawled, crawl, etag_routes, serve

TIMING = ("fetched_at", "response_ms")


def _parses(crawled: Crawled) -> dict[str, bytes | None]:
    """url -> the parse the crawl stored (None: it took the previous crawl's)."""
    return {
        row["url"]: base64.b64decode(row["parse_z"]) if "parse_z" in row else None
        for row in crawled.result.iter_parses()
    }


def _previous(first: Crawled, parses: dict[str, bytes | None]) -> dict[str, dict[str, object]]:
    pages = {}
    for p in first.pages.values():
        page: dict[str, object] = {"etag": p.etag, "content_hash": p.content_hash, "html": p.html}
        if parses.get(p.url):
            page["parse_z"] = parses[p.url]
        pages[p.url] = page
    return pages


def _records(crawled: Crawled) -> dict[str, dict[str, object]]:
    return {
        u: {k: v for k, v in vars(p).items() if k not in TIMING} for u, p in crawled.pages.items()
    }


def test_a_304_takes_the_stored_parse_and_gives_what_a_parse_gives(tmp_path: Path) -> None:
    with serve(etag_routes) as site:
        first = crawl(site, tmp_path / "first", use_sitemap=False, obey_robots=False)
        stored = _parses(first)
        assert len(stored) == 7 and all(stored.values())  # every HTML page's parse is kept
        kept = crawl(
            site, tmp_path / "kept", use_sitemap=False, obey_robots=False,
            previous=_previous(first, stored),
        )  # fmt: skip
        parsed = crawl(
            site, tmp_path / "parsed", use_sitemap=False, obey_robots=False,
            previous=_previous(first, {}),
        )  # fmt: skip
    assert kept.result.stats["not_modified"] == parsed.result.stats["not_modified"] == 7
    assert _parses(kept) == dict.fromkeys(stored)  # all seven took the stored parse
    assert sorted(_parses(parsed)) == sorted(stored) and all(_parses(parsed).values())
    assert _records(kept) == _records(parsed)
    assert [vars(link) for link in kept.links] == [vars(link) for link in parsed.links]
    home = kept.at("/")
    assert (home.title, home.not_modified, home.content_hash) == (
        "Home", True, first.at("/").content_hash,
    )  # fmt: skip


def test_the_stored_parse_is_what_the_crawl_takes_and_only_with_its_key(tmp_path: Path) -> None:
    with serve(etag_routes) as site:
        first = crawl(site, tmp_path / "first", use_sitemap=False, obey_robots=False)
        stored = _parses(first)
        home_url = site.base + "/"
        home = decode_parse(stored[home_url] or b"", _key_of(stored[home_url]))
        assert home is not None and home.meta["title"] == "Home"
        home.meta["title"] = "Home as stored"  # a parse the HTML would not give
        other = StoredParse(**{**vars(home), "key": "another key"})
        doc0 = site.base + "/d0/"
        changed = {**stored, home_url: home.encode(), doc0: other.encode()}
        second = crawl(
            site, tmp_path / "second", use_sitemap=False, obey_robots=False,
            previous=_previous(first, changed),
        )  # fmt: skip
    assert second.at("/").title == "Home as stored"  # taken, not parsed again
    assert second.at("/d0/").title == "Doc 0"  # another key: parsed again, and stored anew
    again = _parses(second)
    assert again[home_url] is None and again[doc0] is not None
    assert decode_parse(again[doc0] or b"", home.key) is not None


def _key_of(blob: bytes | None) -> str:
    return str(json.loads(zlib.decompress(blob or b""))[0])


def test_the_key_follows_the_settings_a_parse_reads() -> None:
    base = parse_key({"a.example"}, False, "keep", ["utm_source"])
    assert base == parse_key(["a.example"], False, "keep", ("utm_source",))
    assert base != parse_key({"a.example", "b.example"}, False, "keep", ["utm_source"])
    assert base != parse_key({"a.example"}, True, "keep", ["utm_source"])
    assert base != parse_key({"a.example"}, False, "strip", ["utm_source"])
    assert base != parse_key({"a.example"}, False, "keep", [])


def test_a_stored_parse_decodes_to_the_parse_it_was_made_from() -> None:
    html = (
        '<html><head><title>T</title><meta name="description" content="D"></head><body>'
        '<h1>H</h1><nav><a href="/x">x</a></nav><p>Read <a href="/y?utm_source=n">y</a> and '
        '<a href="https://elsewhere.example/z">z</a>.</p></body></html>'
    )
    parsed = parse_page(html, "https://a.example/p", {"a.example"}, strip_params={"utm_source"})
    made = StoredParse.of(parsed, "k")
    back = decode_parse(made.encode(), "k")
    assert back is not None and decode_parse(made.encode(), "other") is None
    assert decode_parse(b"not a parse", "k") is None
    assert back.links() == parsed.links and back.hrefs == parsed.hrefs
    assert back.targets == [
        "https://a.example/x",
        "https://a.example/y",
        "https://elsewhere.example/z",
    ]
    assert back.internal == [True, True, False]
    assert back.pairs() == [(link.target_url, link.anchor_text) for link in parsed.links]
    assert back.blocks == [link.block_id for link in parsed.links] and all(back.blocks)
    assert (back.meta["title"], back.meta["h1"], back.meta["meta_description"]) == ("T", "H", "D")
    assert [link.position for link in back.links()] == ["navigation", "content", "content"]
