"""A page whose HTML is that of the previous crawl keeps the main-area facts measured then
(word count, link share, text key, SimHash): its HTML is not read again, and the rows equal a
recomputation; an edited page is measured again."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.stages.indexable_pages import materialize_indexable_pages
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import cursor_dicts, open_db

DEMO_SITE = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
EXTRA = " ".join(f"audit{k} archive{k} revision{k}" for k in range(40))


def _rows(db: Path, crawl_id: str) -> dict[str, dict[str, object]]:
    with open_db(db, read_only=True) as con:
        query = "SELECT * EXCLUDE (crawl_id) FROM indexable_pages WHERE crawl_id = ? ORDER BY url"
        rows = cursor_dicts(con.execute(query, [crawl_id]))
    return {str(r["url"]): r for r in rows}


def _crawl(db: Path, crawl_id: str, base_url: str) -> None:
    register_crawl(db, crawl_id, base_url + "/", "crawler", "", {"max_pages": 80})
    materialize_crawl_export(db, crawl_id, 4)


def test_unchanged_pages_keep_their_facts_and_equal_a_recomputation(tmp_path) -> None:
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    edited = sorted(site_root.glob("guides/*/index.html"))[0]
    db = tmp_path / "i.duckdb"
    with serve_site(site_root) as site:
        _crawl(db, "c1", site.base_url)
        first = materialize_indexable_pages(db, "c1")
        edited.write_text(edited.read_text().replace("</main>", f"<p>{EXTRA}</p></main>", 1))
        _crawl(db, "c2", site.base_url)
        second = materialize_indexable_pages(db, "c2")
        _crawl(db, "c3", site.base_url)  # nothing changed since c2
        third = materialize_indexable_pages(db, "c3")
    before, after = _rows(db, "c1"), _rows(db, "c2")
    # a crawl whose pages are an earlier crawl's copies its rows and thresholds
    assert first.meta["copied_from"] == second.meta["copied_from"] == ""
    assert third.meta["copied_from"] == "c2" and _rows(db, "c3") == after
    assert third.meta["by_reason"] == second.meta["by_reason"]
    assert third.meta["thresholds"] == [dict(t) for t in second.meta["thresholds"]]
    assert third.meta["thin_threshold_words"] == second.meta["thin_threshold_words"]
    fresh = materialize_indexable_pages(db, "c3", reuse=False)
    assert fresh.meta["copied_from"] == "" and _rows(db, "c3") == after
    measured = [url for url, row in before.items() if row["text_key"] is not None]
    edited_url = next(url for url in after if url.endswith("/guides/" + edited.parent.name + "/"))
    assert first.meta["facts_reused"] == 0 and len(measured) > 30
    assert second.meta["facts_reused"] == len(measured) - 1  # all but the edited page
    assert {u: r for u, r in after.items() if u != edited_url} == {
        u: r for u, r in before.items() if u != edited_url
    }
    old, new = before[edited_url], after[edited_url]
    assert new["word_count"] == old["word_count"] + 120  # type: ignore[operator]
    assert new["text_key"] != old["text_key"] and new["simhash"] != old["simhash"]

    con = duckdb.connect(str(db))  # the facts of c1 measured by other code: nothing reusable
    con.execute("UPDATE indexable_pages SET facts_digest = 'older' WHERE crawl_id = 'c1'")
    con.close()
    again = materialize_indexable_pages(db, "c2", reuse=False)  # not c3's rows: computed
    assert again.meta["facts_reused"] == 0 and _rows(db, "c2") == after
