"""The analyst views name pages by title as well as URL (titles of the same crawl)."""

from pathlib import Path

from linkpipe.lib.storage import open_db

PAGES = [
    ("old", "/masks/", True, None, "Layer masks (old title)"),
    ("new", "/masks/", True, None, "Layer masks"),
    ("new", "/brushes/", True, None, "Brushes"),
    ("new", "/print/", False, "canonicalised", "Layer masks (print)"),
]


def test_views_carry_page_titles_of_the_latest_crawl(tmp_path: Path):
    db = tmp_path / "views.duckdb"
    with open_db(db) as con:
        for crawl_id, created in (("old", "2026-01-01"), ("new", "2026-02-01")):
            con.execute(
                "INSERT INTO crawls (crawl_id, start_url, source, created_at) "
                "VALUES (?, '/', 'crawler', ?)",
                [crawl_id, created],
            )
            con.execute(
                "INSERT INTO crawl_runs (crawl_id, status) VALUES (?, 'complete')", [crawl_id]
            )
            con.execute(
                "INSERT INTO link_opportunities (crawl_id, source_url, target_url, rank, score) "
                "VALUES (?, '/masks/', '/brushes/', 1, 0.5)",
                [crawl_id],
            )
        for crawl_id, url, indexable, reason, title in PAGES:
            con.execute(
                "INSERT INTO indexable_pages (crawl_id, url, shard, indexable, reason, title) "
                "VALUES (?, ?, 0, ?, ?, ?)",
                [crawl_id, url, indexable, reason, title],
            )
            con.execute(
                "INSERT INTO page_link_metrics (crawl_id, url, indexable, pagerank) "
                "VALUES (?, ?, ?, 0.25)",
                [crawl_id, url, indexable],
            )
        opportunities = con.execute(
            "SELECT source_url, target_url, source_title, target_title, rank FROM v_opportunities"
        ).fetchall()
        metrics = con.execute(
            "SELECT url, title, indexable, pagerank FROM v_page_metrics ORDER BY url"
        ).fetchall()
        excluded = con.execute("SELECT url, reason, title FROM v_excluded_pages").fetchall()
        columns = [d[0] for d in con.execute("SELECT * FROM v_page_metrics").description]
    assert opportunities == [("/masks/", "/brushes/", "Layer masks", "Brushes", 1)]
    assert metrics == [
        ("/brushes/", "Brushes", True, 0.25),
        ("/masks/", "Layer masks", True, 0.25),
        ("/print/", "Layer masks (print)", False, 0.25),
    ]
    assert excluded == [("/print/", "canonicalised", "Layer masks (print)")]
    assert columns[:4] == ["crawl_id", "url", "title", "indexable"]
