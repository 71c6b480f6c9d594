"""crawl_export keeps the crawler's parse of each page (``crawl_parses``): a recrawl takes it
for every page that answers 304 and stores exactly the pages, links and parses a crawl from
scratch of the same site stores; the parses are never published."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from linkpipe.lib.retention import publish_copy
from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import cursor_dicts, open_db

DEMO_SITE = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
PAGE_FACTS = "url, status, title, h1, meta_description, canonical, page_type, content_hash, depth"


def _crawl(db: Path, crawl_id: str, base_url: str) -> dict[str, object]:
    register_crawl(db, crawl_id, base_url + "/", "crawler", "", {"max_pages": 80})
    materialize_crawl_export(db, crawl_id, 4)
    with open_db(db, read_only=True) as con:
        row = con.execute("SELECT crawl_stats FROM crawls WHERE crawl_id = ?", [crawl_id])
        stats: dict[str, object] = json.loads(row.fetchone()[0])
    return stats


def _rows(db: Path, crawl_id: str) -> dict[str, list[dict[str, object]]]:
    queries = {
        "pages": f"SELECT {PAGE_FACTS} FROM crawl_pages WHERE crawl_id = ? ORDER BY url",
        "links": "SELECT * EXCLUDE (crawl_id) FROM crawl_links WHERE crawl_id = ? ORDER BY ALL",
        "parses": "SELECT url, parse_z FROM crawl_parses WHERE crawl_id = ? ORDER BY url",
    }
    with open_db(db, read_only=True) as con:
        return {k: cursor_dicts(con.execute(q, [crawl_id])) for k, q in queries.items()}


def test_a_recrawl_takes_stored_parses_and_stores_what_a_fresh_crawl_stores(tmp_path) -> None:
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    edited = sorted(site_root.glob("guides/*/index.html"))[0]
    db, fresh_db = tmp_path / "c.duckdb", tmp_path / "fresh.duckdb"
    with serve_site(site_root, port=0) as site:
        first = _crawl(db, "c1", site.base_url)
        text = edited.read_text().replace("</main>", '<p>New <a href="/">home</a>.</p></main>', 1)
        edited.write_text(text)
        second = _crawl(db, "c2", site.base_url)
        _crawl(fresh_db, "f", site.base_url)
    html_pages = int(first["html_pages"])  # type: ignore[call-overload]
    assert first["parses_reused"] == 0 and html_pages > 30
    assert second["not_modified"] == html_pages - 1 == second["parses_reused"]
    before, after, fresh = _rows(db, "c1"), _rows(db, "c2"), _rows(fresh_db, "f")
    assert after == fresh  # pages, links (every column) and parses, byte for byte
    assert len(after["parses"]) == html_pages
    changed = [a["url"] for a, b in zip(after["parses"], before["parses"], strict=True) if a != b]
    assert len(changed) == 1 and str(changed[0]).endswith(f"/guides/{edited.parent.name}/")
    with open_db(publish_copy(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM crawl_parses").fetchone() == (0,)
