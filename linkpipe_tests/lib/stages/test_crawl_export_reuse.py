"""crawl_export keeps each page's HTML and the crawler's parse of it once by content
(``page_html``, ``page_parses``): a recrawl takes the stored parse for every page that answers
304, writes neither again, and stores exactly the pages, links, HTML and parses a crawl from
scratch of the same site stores. A database whose last crawl kept them in the crawl's own rows
(earlier code) is carried over by the next crawl; pruning deletes what no kept crawl has; none
of it is published."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from linkpipe.lib.html.stored import decompress_html
from linkpipe.lib.retention import prune_crawls, publish_copy
from linkpipe.lib.run_status import finish_run_in
from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import cursor_dicts, fetch_dicts, open_db

DEMO_SITE = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
PAGE_FACTS = "url, status, title, h1, meta_description, canonical, page_type, content_hash, depth"


def _crawl(db: Path, crawl_id: str, base_url: str) -> dict[str, object]:
    register_crawl(db, crawl_id, base_url + "/", "crawler", "", {"max_pages": 80})
    materialize_crawl_export(db, crawl_id, 4)
    finish_run_in(db, crawl_id, "partial")  # as `linkpipe crawl` leaves it: prunable
    with open_db(db, read_only=True) as con:
        row = con.execute("SELECT crawl_stats FROM crawls WHERE crawl_id = ?", [crawl_id])
        stats: dict[str, object] = json.loads(row.fetchone()[0])
    return stats


def _rows(db: Path, crawl_id: str) -> dict[str, list[dict[str, object]]]:
    """The crawl's pages, links, and each page's HTML and parse as the pipeline reads them."""
    queries = {
        "pages": f"SELECT {PAGE_FACTS} FROM crawl_pages WHERE crawl_id = ? ORDER BY url",
        "links": "SELECT * EXCLUDE (crawl_id) FROM crawl_links WHERE crawl_id = ? ORDER BY ALL",
        "parses": """SELECT p.url, s.parse_z FROM crawl_pages p
                     JOIN page_parses s ON s.url = p.url AND s.content_hash = p.content_hash
                     WHERE p.crawl_id = ? ORDER BY p.url""",
    }
    with open_db(db, read_only=True) as con:
        rows = {k: cursor_dicts(con.execute(q, [crawl_id])) for k, q in queries.items()}
        html = fetch_dicts(
            con, "read/select_pages_html", [crawl_id, [r["url"] for r in rows["pages"]]]
        )
        rows["html"] = sorted(html, key=lambda r: str(r["url"]))
    return rows


def _counts(db: Path) -> tuple[int, int, int]:
    """Rows of page_html and page_parses, and pages stored with their own HTML."""
    with open_db(db, read_only=True) as con:
        query = """SELECT (SELECT count(*) FROM page_html), (SELECT count(*) FROM page_parses),
                          (SELECT count(*) FROM crawl_pages WHERE html_z IS NOT NULL)"""
        found = con.execute(query).fetchone()
    return int(found[0]), int(found[1]), int(found[2])


def _edit(site_root: Path) -> Path:
    edited = sorted(site_root.glob("guides/*/index.html"))[0]
    text = edited.read_text().replace("</main>", '<p>New <a href="/">home</a>.</p></main>', 1)
    edited.write_text(text)
    return edited


def test_a_recrawl_takes_stored_parses_and_stores_what_a_fresh_crawl_stores(tmp_path) -> None:
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db, fresh_db = tmp_path / "c.duckdb", tmp_path / "fresh.duckdb"
    with serve_site(site_root, port=0) as site:
        first = _crawl(db, "c1", site.base_url)
        stored_once = _counts(db)
        edited = _edit(site_root)
        second = _crawl(db, "c2", site.base_url)
        _crawl(fresh_db, "f", site.base_url)
    html_pages = int(first["html_pages"])  # type: ignore[call-overload]
    assert first["parses_reused"] == 0 and html_pages > 30
    assert second["not_modified"] == html_pages - 1 == second["parses_reused"]
    before, after, fresh = _rows(db, "c1"), _rows(db, "c2"), _rows(fresh_db, "f")
    assert after == fresh  # pages, links (every column), HTML and parses, byte for byte
    assert len(after["parses"]) == html_pages
    assert sum(1 for r in after["html"] if r["html_z"] is not None) == html_pages
    changed = [a["url"] for a, b in zip(after["parses"], before["parses"], strict=True) if a != b]
    assert len(changed) == 1 and str(changed[0]).endswith(f"/guides/{edited.parent.name}/")
    # each content once (the demo's exact duplicate pages share one HTML row; a parse is by
    # URL too): the recrawl added the edited page's HTML and parse, nothing else
    contents = len(
        {
            r["content_hash"]
            for r, h in zip(after["pages"], after["html"], strict=True)
            if h["html_z"]
        }
    )
    assert contents == html_pages - 1
    assert stored_once == (contents, html_pages, 0)
    assert _counts(db) == (contents + 1, html_pages + 1, 0)
    with open_db(db) as con:
        assert prune_crawls(con, keep=1) == ["c1"]
    assert _counts(db) == (contents, html_pages, 0)  # the edited page's old content went
    assert _rows(db, "c2") == after
    with open_db(publish_copy(db), read_only=True) as con:
        for table in ("page_html", "page_parses", "crawl_parses"):
            assert con.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


def _as_earlier_code_stored(db: Path, crawl_id: str) -> None:
    """Move the crawl's HTML and parses into its own rows, as crawls of earlier code were."""
    with open_db(db) as con:
        con.execute(
            """UPDATE crawl_pages p SET html_z = h.html_z FROM page_html h
               WHERE h.content_hash = p.content_hash AND p.crawl_id = ?""",
            [crawl_id],
        )
        con.execute(
            """INSERT INTO crawl_parses SELECT ?, p.url, s.parse_z FROM crawl_pages p
               JOIN page_parses s ON s.url = p.url AND s.content_hash = p.content_hash
               WHERE p.crawl_id = ?""",
            [crawl_id, crawl_id],
        )
        con.execute("DELETE FROM page_html")
        con.execute("DELETE FROM page_parses")


def test_a_crawl_after_earlier_code_carries_its_html_and_parses_over(tmp_path) -> None:
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "c.duckdb"
    with serve_site(site_root, port=0) as site:
        first = _crawl(db, "c1", site.base_url)
        stored = _rows(db, "c1")
        _as_earlier_code_stored(db, "c1")
        html_pages = int(first["html_pages"])  # type: ignore[call-overload]
        contents = html_pages - 1  # the demo's exact duplicate pages share one HTML row
        assert _counts(db) == (0, 0, html_pages)
        assert _rows(db, "c1")["html"] == stored["html"]  # read from the crawl's own rows
        second = _crawl(db, "c2", site.base_url)
        assert second["parses_reused"] == html_pages  # taken from crawl_parses
        assert _counts(db) == (contents, html_pages, html_pages)  # carried over by content
        with open_db(db) as con:
            assert prune_crawls(con, keep=1) == ["c1"]
        third = _crawl(db, "c3", site.base_url)
    assert third["parses_reused"] == html_pages  # from page_parses: nothing parsed again
    assert _counts(db) == (contents, html_pages, 0)
    for crawl_id in ("c2", "c3"):
        rows = _rows(db, crawl_id)
        assert rows["html"] == stored["html"] and rows["parses"] == stored["parses"]


def test_an_imported_crawl_stores_its_html_by_content(tmp_path) -> None:
    from linkpipe_tests.hostile.test_import_hostile import GOOD_WARC, HTML

    source = tmp_path / "site.warc.gz"
    source.write_bytes(GOOD_WARC)  # two pages with the same body
    db = tmp_path / "w.duckdb"
    register_crawl(db, "w1", "http://s.test/", "warc", str(source))
    materialize_crawl_export(db, "w1", 4)
    rows = _rows(db, "w1")
    assert [r["url"] for r in rows["html"]] == ["http://s.test/", "http://s.test/b"]
    assert {decompress_html(r["html_z"]) for r in rows["html"]} == {HTML.decode()}
    assert _counts(db) == (1, 0, 0)  # one body stored once; an import has no crawler parse
