"""History views and macros (sql/schema/views.sql): suggestions, links and accepted decisions
compared crawl over crawl, on crawls written row by row (every status and reason) and on two
real crawls of the demo site where an editor implements an accepted suggestion."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import duckdb

from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import open_db, write_partition

SITE = "https://hist.example"
HOME, A, B, C, D, E, F = (f"{SITE}/{p}" for p in ("", "a/", "b/", "c/", "d/", "e/", "f/"))
DEMO_SITE = Path(__file__).resolve().parents[2] / "linkpipe" / "demo_site"


def write_crawl(
    db: Path,
    crawl_id: str,
    day: int,
    pages: dict[str, str | None],
    edges: list[tuple[str, str, str, str]],
    suggestions: list[tuple[str, str, int]],
    candidates: tuple[tuple[str, str], ...] = (),
    status: str = "complete",
    start_url: str = HOME,
) -> None:
    """One crawl: ``pages`` maps each crawled URL to its exclusion reason (None: indexable),
    ``edges`` are (source, resolved target, position, anchor), ``suggestions`` (source,
    target, rank); created on day ``day`` of November 2026."""
    register_crawl(db, crawl_id, start_url, "crawler", "", {})
    tables: dict[str, Any] = {
        "crawl_pages": [{"url": u, "shard": 0, "status": 200} for u in pages],
        "indexable_pages": [
            {"url": u, "shard": 0, "indexable": r is None, "reason": r} for u, r in pages.items()
        ],
        "link_edges": [
            {"source_url": s, "target_url": t, "resolved_url": t, "position": p, "anchor_text": a}
            for s, t, p, a in edges
        ],
        "link_opportunities": [
            {"source_url": s, "target_url": t, "rank": r, "score": 1.0 / r, "anchor_text": "x"}
            for s, t, r in suggestions
        ],
        "crawl_runs": [{"status": status}],
    }
    pairs = [*candidates, *((s, t) for s, t, _ in suggestions)]
    cands = [{"source_url": s, "target_url": t} for s, t in pairs]
    with open_db(db) as con:
        write_partition(con, crawl_id, tables)
        write_partition(con, crawl_id, {"candidate_pairs": cands}, shard=0)
        con.execute(
            "UPDATE crawls SET created_at = ? WHERE crawl_id = ?",
            [dt.datetime(2026, 11, day), crawl_id],
        )


def decide(db: Path, source: str, target: str, decision: str, crawl_id: str) -> None:
    with open_db(db) as con:
        con.execute(
            "INSERT OR REPLACE INTO link_decisions (source_url, target_url, decision, "
            "decided_by, crawl_id) VALUES (?, ?, ?, 'ed', ?)",
            [source, target, decision, crawl_id],
        )


def query(db: Path, sql: str, params: list[object] | None = None) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def build_history(db: Path) -> None:
    """c1 and c2 of the same site (complete), a crawl of another site between them, and a
    running crawl after them."""
    write_crawl(
        db,
        "c1",
        1,
        {HOME: None, A: None, B: None, C: None, D: None, E: None},
        [(HOME, A, "navigation", "A"), (HOME, B, "navigation", "B"), (B, A, "content", "alpha"),
         (C, D, "content", "delta")],
        [(HOME, A, 1), (A, B, 1), (A, C, 2), (B, D, 1), (B, E, 2), (C, A, 1), (C, B, 2)],
    )  # fmt: skip
    write_crawl(db, "other", 2, {"https://other.example/": None}, [], [],
                start_url="https://other.example/")  # fmt: skip
    write_crawl(
        db,
        "c2",
        3,
        {HOME: None, A: None, B: None, C: None, E: "noindex", F: None},
        [(HOME, A, "navigation", "Alpha"), (HOME, B, "content", "B"), (A, B, "content", "bee"),
         (A, B, "content", "bee guide"), (A, F, "content", "")],
        [(HOME, A, 1), (A, F, 1), (B, A, 1), (C, HOME, 1)],
        candidates=((C, A),),
    )  # fmt: skip
    write_crawl(db, "c3", 4, {HOME: None}, [], [], status="running")
    decide(db, A, C, "rejected", "c1")
    decide(db, A, B, "accepted", "c1")
    decide(db, HOME, A, "accepted", "c1")
    decide(db, B, D, "accepted", "c1")
    decide(db, C, HOME, "accepted", "c2")  # reviewed on the new crawl: nothing to follow up


def test_default_pair_is_the_latest_complete_crawl_and_the_one_before_of_its_site(tmp_path):
    db = tmp_path / "h.duckdb"
    build_history(db)
    assert query(db, "SELECT * FROM v_compared_crawls") == [("c1", "c2", HOME)]


def test_suggestion_changes_say_what_happened_and_why(tmp_path):
    db = tmp_path / "h.duckdb"
    build_history(db)
    rows = query(
        db,
        "SELECT old_crawl_id, new_crawl_id, source_url, target_url, status, why, old_rank, "
        "new_rank, implemented_anchor, decision FROM v_suggestion_changes",
    )
    assert rows == [
        ("c1", "c2", A, C, "disappeared", "rejected by an editor", 2, None, None, "rejected"),
        ("c1", "c2", B, D, "disappeared", "target page gone", 1, None, None, "accepted"),
        ("c1", "c2", B, E, "disappeared", "target page no longer indexable: noindex", 2, None,
         None, None),
        ("c1", "c2", C, A, "disappeared", "no longer ranked", 1, None, None, None),
        ("c1", "c2", C, B, "disappeared", "no longer a candidate", 2, None, None, None),
        ("c1", "c2", A, B, "implemented", 'linked in content with anchor "bee | bee guide"', 1,
         None, "bee | bee guide", "accepted"),
        ("c1", "c2", A, F, "new", "target page new", None, 1, None, None),
        ("c1", "c2", B, A, "new", "content link removed", None, 1, None, None),
        ("c1", "c2", C, HOME, "new", "newly ranked", None, 1, None, "accepted"),
        ("c1", "c2", HOME, A, "still_open", None, 1, 1, None, "accepted"),
    ]  # fmt: skip


def test_link_changes_by_position(tmp_path):
    db = tmp_path / "h.duckdb"
    build_history(db)
    rows = query(
        db,
        "SELECT source_url, target_url, position, change, old_anchor_text, new_anchor_text, why "
        "FROM v_link_changes",
    )
    assert rows == [
        (HOME, B, "content", "added", None, "B", None),  # the home URL sorts first
        (A, B, "content", "added", None, "bee | bee guide", None),
        (A, F, "content", "added", None, None, "target page new"),
        (HOME, A, "navigation", "anchor_changed", "A", "Alpha", None),
        (B, A, "content", "removed", "alpha", None, None),
        (C, D, "content", "removed", "delta", None, "target page gone"),
        (HOME, B, "navigation", "removed", "B", None, None),
    ]


def test_accepted_decisions_are_followed_up_in_the_next_crawl(tmp_path):
    db = tmp_path / "h.duckdb"
    build_history(db)
    rows = query(
        db,
        "SELECT source_url, target_url, status, implemented_anchor, linked_before, "
        "other_positions, still_suggested, reviewed_crawl_id FROM v_accepted_followup",
    )
    assert rows == [
        (A, B, "implemented", "bee | bee guide", False, None, False, "c1"),
        (HOME, A, "missing", None, False, "navigation", True, "c1"),
        (B, D, "page_gone", None, False, None, False, "c1"),
    ]


def test_macros_compare_any_two_crawls(tmp_path):
    db = tmp_path / "h.duckdb"
    build_history(db)
    backwards = query(
        db,
        "SELECT source_url, target_url, status, why FROM suggestion_changes('c2', 'c1') "
        "WHERE status <> 'new' ORDER BY ALL",
    )
    assert backwards == [
        (HOME, A, "still_open", None),
        (A, F, "disappeared", "target page gone"),
        (B, A, "implemented", 'linked in content with anchor "alpha"'),
        (C, HOME, "disappeared", "no longer a candidate"),
    ]
    assert query(db, "SELECT count(*) FROM link_changes('c1', 'c1')") == [(0,)]
    followup = query(
        db,
        "SELECT source_url, target_url, status FROM accepted_followup('c2', 'c1') ORDER BY ALL",
    )  # every accepted pair, the one reviewed on c2 included, against c1
    assert followup == [
        (HOME, A, "missing"),
        (A, B, "missing"),
        (B, D, "missing"),
        (C, HOME, "missing"),
    ]


def test_views_are_empty_with_a_single_complete_crawl(tmp_path):
    db = tmp_path / "h.duckdb"
    write_crawl(db, "c1", 1, {HOME: None, A: None}, [(HOME, A, "content", "a")], [(A, HOME, 1)])
    decide(db, A, HOME, "accepted", "c1")
    for view in ("v_compared_crawls", "v_suggestion_changes", "v_link_changes",
                 "v_accepted_followup"):  # fmt: skip
        assert query(db, f"SELECT count(*) FROM {view}") == [(0,)], view


def _edit_source(root: Path, source_url: str, base_url: str, target_url: str, anchor: str) -> None:
    """Add a content link to ``target_url`` at the end of the source page's first paragraph."""
    page = root / source_url.removeprefix(base_url + "/") / "index.html"
    html = page.read_text(encoding="utf-8")
    link = f' <a href="{target_url.removeprefix(base_url)}">{anchor}</a>'
    assert "</p>" in html
    page.write_text(html.replace("</p>", link + "</p>", 1), encoding="utf-8")


def test_an_implemented_accepted_suggestion_on_two_real_crawls(tmp_path, fake_model):
    from linkpipe.defs.runner import run_graph

    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "demo.duckdb"
    with serve_site(site_root) as site:
        base = site.base_url
        register_crawl(db, "c1", base + "/", "crawler", "", {"max_pages": 80})
        run_graph(db, "c1", fake_model, workers=1)
        (source, target, anchor), *_ = query(
            db,
            "SELECT source_url, target_url, anchor_text FROM link_opportunities "
            "WHERE crawl_id = 'c1' AND anchor_text IS NOT NULL ORDER BY score DESC LIMIT 1",
        )
        decide(db, source, target, "accepted", "c1")
        _edit_source(site_root, source, base, target, anchor)
        register_crawl(db, "c2", base + "/", "crawler", "", {"max_pages": 80})
        run_graph(db, "c2", fake_model, workers=1)

    assert query(db, "SELECT old_crawl_id, new_crawl_id FROM v_compared_crawls") == [("c1", "c2")]
    changes = query(
        db,
        "SELECT status, why, implemented_anchor FROM v_suggestion_changes "
        "WHERE source_url = ? AND target_url = ?",
        [source, target],
    )
    assert changes == [("implemented", f'linked in content with anchor "{anchor}"', anchor)]
    added = query(
        db,
        "SELECT source_url, target_url, position, change, new_anchor_text FROM v_link_changes "
        "WHERE change <> 'anchor_changed'",
    )
    assert (source, target, "content", "added", anchor) in added
    assert query(db, "SELECT status, implemented_anchor FROM v_accepted_followup") == [
        ("implemented", anchor)
    ]
    statuses = dict(query(db, "SELECT status, count(*) FROM v_suggestion_changes GROUP BY ALL"))
    assert statuses["implemented"] == 1 and statuses["still_open"] > 100
