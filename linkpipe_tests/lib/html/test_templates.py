"""Template detection over parsed pages."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from linkpipe.lib.hashing import sampled, shard_of
from linkpipe.lib.html.parse import parse_page
from linkpipe.lib.html.templates import (
    TemplateDetector,
    apply_to_links_file,
    reclassify_template_links,
)
from linkpipe.lib.records import LinkRecord

MENU = "".join(f'<div class="item"><a href="/s{i}/">Section {i}</a></div>' for i in range(4))
LIST_MENU = '<ul class="list">{items}</ul>'


def site(n_pages: int, current_in_menu: bool = False) -> dict[str, list[LinkRecord]]:
    """Pages with a non-semantic menu, a sidebar list whose current item is not a link, and a
    paragraph with one in-text link that is unique to the page."""
    pages = {}
    for i in range(n_pages):
        items = "".join(
            f"<li>Doc {k}</li>"
            if (k == i % 5 and current_in_menu)
            else f'<li><a href="/d{k}/">Doc {k}</a></li>'
            for k in range(5)
        )
        html = (
            f'<div class="box">{MENU}</div>{LIST_MENU.format(items=items)}'
            f'<p>Page {i} is about topic {i}; see <a href="/t{i + 1}/">topic {i + 1}</a>.</p>'
            '<p>Contact us: <a href="/contact/">contact</a></p>'
        )
        url = f"http://ex.com/p{i}/"
        pages[url] = parse_page(html, url, {"ex.com"}).links
    return pages


def positions(pages: dict[str, list[LinkRecord]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for links in pages.values():
        for link in links:
            found.setdefault(link.anchor_text.split()[0], set()).add(link.position)
    return found


def test_repeated_blocks_become_navigation() -> None:
    pages = site(20, current_in_menu=True)
    changed = reclassify_template_links(pages)
    found = positions(pages)
    assert found["Section"] == {"navigation"}  # identical single-link blocks on every page
    assert found["Doc"] == {"navigation"}  # list with a varying "current" item
    assert found["contact"] == {"navigation"}  # the same paragraph on every page
    assert found["topic"] == {"content"}  # in-text links stay content
    assert changed == 20 * 4 + 20 * 4 + 20


def test_small_sites_are_left_alone() -> None:
    pages = site(5)
    assert reclassify_template_links(pages) == 0
    assert {p for links in pages.values() for p in (link.position for link in links)} == {"content"}


def test_frequent_in_text_link_in_unique_paragraphs_stays_content() -> None:
    pages = {}
    for i in range(30):
        html = f'<p>Story {i}: our <a href="/pricing/">pricing</a> changed on day {i}.</p>'
        pages[f"http://ex.com/n{i}/"] = parse_page(html, f"http://ex.com/n{i}/", {"ex.com"}).links
    assert reclassify_template_links(pages) == 0


def test_semantic_positions_are_kept_and_links_without_blocks_use_pairs() -> None:
    links = {
        f"http://ex.com/{i}": [
            LinkRecord(f"http://ex.com/{i}", "http://ex.com/home", "Home", position="header"),
            LinkRecord(f"http://ex.com/{i}", "http://ex.com/help", "Help"),
            LinkRecord(f"http://ex.com/{i}", f"http://ex.com/x{i}", "unique"),
        ]
        for i in range(10)
    }
    assert reclassify_template_links(links, min_pages=8, min_share=0.5) == 10
    assert {link.position for page in links.values() for link in page} == {
        "header",
        "navigation",
        "content",
    }
    assert all(page[2].position == "content" for page in links.values())


@pytest.mark.parametrize("batch_lines", [1, 7, 100_000])
def test_streamed_file_matches_in_memory(tmp_path: Path, batch_lines: int) -> None:
    """Read in batches of whole pages (a batch of 1 or 7 lines still ends on a page's last
    line), judged column-wise: the same links as the in-memory pass."""
    pages = site(12)
    src = tmp_path / "raw.jsonl"
    with src.open("w", encoding="utf-8") as handle:
        for links in pages.values():
            handle.writelines(json.dumps(link.as_row()) + "\n" for link in links)
    detector = TemplateDetector()
    for links in pages.values():
        detector.observe(links)
    dst = tmp_path / "links.jsonl"
    changed = apply_to_links_file(detector, src, dst, batch_lines)
    reclassified = [
        LinkRecord(**json.loads(line)) for line in dst.read_text(encoding="utf-8").splitlines()
    ]
    assert changed == reclassify_template_links(pages) > 0
    assert reclassified == [link for links in pages.values() for link in links]


def test_template_sample_and_shards_are_the_same_stable_url_hash() -> None:
    """sharding holds the one URL hash: the crawl's template sample and the asset shards, both
    of the URL's path and query."""
    urls = [f"https://a.example/p{i}" for i in range(2000)]
    digests = {u: hashlib.sha1(u.removeprefix("https://a.example").encode()).digest() for u in urls}
    picked = [u for u in urls if sampled(u, 0.25)]
    assert 400 < len(picked) < 600
    # the formula the template sample had before the hashes were merged
    assert picked == [u for u in urls if int(digests[u].hex()[:8], 16) < 0.25 * 0xFFFFFFFF]
    assert all(sampled(u, 1.0) for u in urls)
    assert [shard_of(u, 4) for u in urls[:8]] == [
        int.from_bytes(digests[u][:8], "big") % 4 for u in urls[:8]
    ]


def test_a_site_served_elsewhere_keeps_its_shards_samples_and_held_out_sources() -> None:
    # linkpipe eval serves each run on a new port: a page's shard decides which pages the model
    # embeds in one batch, so the shards once moved the last bits of vectors between runs
    from linkpipe.lib.links.weights import held_out

    paths = [f"/docs/p{i}.html" for i in range(400)] + ["/search?q=a", "/search?q=b", "/"]
    hosts = ["http://127.0.0.1:8000", "http://127.0.0.1:41233", "https://docs.example.org"]
    for path in paths:
        urls = [host + path for host in hosts]
        assert len({shard_of(u) for u in urls}) == 1, path
        assert len({sampled(u, 0.3) for u in urls}) == 1, path
        assert len({held_out(u) for u in urls}) == 1, path
    # the query names a page too; every shard is used
    assert shard_of("http://h/search?q=a", 1000) != shard_of("http://h/search?q=b", 1000)
    assert {shard_of("http://h" + p) for p in paths} == {0, 1, 2, 3}
