"""What-if on a hand-checkable site: a chain from the home page, and an orphan that links into
its deepest page. Adding one link fixes the orphan and lifts the deep page to depth 3."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from linkpipe.lib.links.graph import pagerank
from linkpipe.lib.links.whatif import (
    Scenario,
    WhatIfError,
    chosen_links,
    gini,
    run_whatif,
    summary_lines,
)
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.stages.link_graph import materialize_link_graph
from linkpipe.lib.storage import open_db, write_partition

SITE = "https://chain.example"
HOME, A, B, C, D, E = (f"{SITE}/{p}" for p in ("", "a/", "b/", "c/", "d/", "e/"))
PAGES = [HOME, A, B, C, D, E]  # sorted by URL: graph node i is PAGES[i]
CHAIN = [(HOME, A), (A, B), (B, C), (C, D), (E, D)]  # E: orphan (sitemap only), D at depth 4
EDGES_BEFORE = [(0, 1), (1, 2), (2, 3), (3, 4), (5, 4)]
EDGES_AFTER = [*EDGES_BEFORE, (1, 5)]  # the suggestion A -> E


def build_chain_site(db: Path, crawl_id: str = "c1") -> None:
    """Register and write the chain crawl, build its link graph with the link_graph stage,
    store three suggestions (A->E rank 1, A->D rank 2, B->E rank 1) and mark it complete."""
    register_crawl(db, crawl_id, HOME, "crawler", "", {})
    pages = [
        {"url": u, "shard": 0, "status": 200, "final_url": u, "in_sitemap": True} for u in PAGES
    ]
    links = [
        {
            "source_url": s,
            "target_url": t,
            "anchor_text": t.rsplit("/", 2)[-2] or "home",
            "position": "content",
            "nofollow": False,
            "internal": True,
        }
        for s, t in CHAIN
    ]
    links.append(  # a nofollow navigation link home: counted, never followed
        {
            "source_url": D,
            "target_url": HOME,
            "anchor_text": "Home",
            "position": "navigation",
            "nofollow": True,
            "internal": True,
        }
    )
    indexable = [{"url": u, "shard": 0, "indexable": True} for u in PAGES]
    opportunities = [
        {"source_url": A, "target_url": E, "rank": 1, "score": 0.9, "anchor_text": "e"},
        {"source_url": A, "target_url": D, "rank": 2, "score": 0.5, "anchor_text": "d"},
        {"source_url": B, "target_url": E, "rank": 1, "score": 0.8, "anchor_text": "e"},
    ]
    with open_db(db) as con:
        write_partition(
            con,
            crawl_id,
            {"crawl_pages": pages, "crawl_links": links, "indexable_pages": indexable},
        )
    materialize_link_graph(db, crawl_id)
    with open_db(db) as con:
        write_partition(
            con,
            crawl_id,
            {"link_opportunities": opportunities, "crawl_runs": [{"status": "complete"}]},
        )


def decide(db: Path, source: str, target: str, decision: str) -> None:
    with open_db(db) as con:
        con.execute(
            "INSERT OR REPLACE INTO link_decisions (source_url, target_url, decision, crawl_id) "
            "VALUES (?, ?, ?, 'c1')",
            [source, target, decision],
        )


def stored_metrics(db: Path) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT url, pagerank, click_depth, is_orphan FROM page_link_metrics "
            "WHERE crawl_id = 'c1'"
        ).fetchall()
    finally:
        con.close()
    return {r[0]: r[1:] for r in rows}


def whatif_rows(db: Path, scenario: str) -> dict[str, dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute(
            "SELECT * EXCLUDE (created_at) FROM whatif_pages WHERE scenario = ? ORDER BY url",
            [scenario],
        )
        names = [d[0] for d in cur.description]
        return {r[2]: dict(zip(names, r, strict=True)) for r in cur.fetchall()}
    finally:
        con.close()


def test_gini_of_known_distributions():
    assert gini([0.25, 0.25, 0.25, 0.25]) == 0.0
    assert gini([0.0, 0.0, 0.0, 1.0]) == pytest.approx(0.75)
    assert gini([1.0, 3.0]) == pytest.approx(0.25)  # (|1-3| + |3-1|) / (2 * 2^2 * mean 2)
    assert gini([]) == 0.0


def test_one_accepted_link_fixes_the_orphan_and_lifts_the_deep_page(tmp_path):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    decide(db, A, E, "accepted")
    decide(db, B, E, "rejected")

    summary, written = run_whatif(db, Scenario())
    rows = whatif_rows(db, "accepted")
    assert written == len(rows) == 6

    before = stored_metrics(db)  # before = what the link_graph stage stored, exactly
    for url, (rank, depth, orphan) in before.items():
        row = rows[url]
        assert (row["pagerank_before"], row["click_depth_before"], row["is_orphan_before"]) == (
            rank,
            depth,
            orphan,
        )
    assert [before[u][1] for u in PAGES] == [0, 1, 2, 3, 4, None]
    assert [rows[u]["click_depth_after"] for u in PAGES] == [0, 1, 2, 3, 3, 2]
    assert [rows[u]["is_orphan_after"] for u in PAGES] == [False] * 6
    assert rows[E]["is_orphan_before"] and rows[E]["links_added"] == 1
    assert [rows[u]["links_added"] for u in PAGES[:5]] == [0] * 5

    # the nofollow navigation link D -> Home is not followed: PageRank sees the chain only
    expected_before = pagerank(6, *np.array(EDGES_BEFORE).T).tolist()
    expected_after = pagerank(6, *np.array(EDGES_AFTER).T).tolist()
    assert [rows[u]["pagerank_before"] for u in PAGES] == expected_before
    assert [rows[u]["pagerank_after"] for u in PAGES] == pytest.approx(expected_after, abs=1e-15)
    for u in PAGES:
        gain = rows[u]["pagerank_after"] - rows[u]["pagerank_before"]
        assert rows[u]["pagerank_gain"] == pytest.approx(gain, abs=1e-15)
    assert sum(r["pagerank_after"] for r in rows.values()) == pytest.approx(1.0)

    assert (summary.crawl_id, summary.scenario, summary.links) == ("c1", "accepted", 1)
    assert (summary.orphans_before, summary.orphans_after, summary.orphans_fixed) == (1, 0, 1)
    assert summary.moved_up == 2  # D from depth 4 to 3, E from unreachable to 2
    assert summary.gini_before == pytest.approx(_mean_difference_gini(expected_before))
    assert summary.gini_after == pytest.approx(_mean_difference_gini(expected_after))
    gainers = sorted(
        (u for u in PAGES if expected_after[PAGES.index(u)] > expected_before[PAGES.index(u)]),
        key=lambda u: -(expected_after[PAGES.index(u)] - expected_before[PAGES.index(u)]),
    )
    assert [g.url for g in summary.top_gains] == gainers
    assert summary.top_gains[0].url == E

    lines = summary_lines(summary)
    assert lines[:4] == [
        "what-if on crawl c1, scenario accepted: 1 suggested link implemented",
        "orphan pages: 1 -> 0 (1 fixed)",
        "pages moved to click depth <= 3: 2",
        f"PageRank Gini: {summary.gini_before:.3f} -> {summary.gini_after:.3f}",
    ]
    e_before, e_after = expected_before[5], expected_after[5]
    assert lines[4] == "biggest PageRank gains:"
    assert lines[5] == f"  +{e_after - e_before:.4f}  {e_before:.4f} -> {e_after:.4f}  {E}"


def _mean_difference_gini(values: list[float]) -> float:
    """Gini as the mean absolute difference over twice the mean (an independent formula)."""
    n = len(values)
    total = sum(abs(x - y) for x in values for y in values)
    return total / (2 * n * n * (sum(values) / n))


def test_top_n_takes_the_best_suggestions_per_source_without_rejected_pairs(tmp_path):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    decide(db, B, E, "rejected")
    with open_db(db) as con:
        top1 = chosen_links(con, "c1", Scenario(top=1))
        top2 = chosen_links(con, "c1", Scenario(top=2))
    assert [(r["source_url"], r["target_url"]) for r in top1] == [(A, E)]
    assert [(r["source_url"], r["target_url"]) for r in top2] == [(A, D), (A, E)]

    summary, _ = run_whatif(db, Scenario(top=2))
    rows = whatif_rows(db, "top-2")
    assert summary.links == 2 and summary.scenario == "top-2"
    assert [rows[u]["click_depth_after"] for u in PAGES] == [0, 1, 2, 3, 2, 2]
    assert rows[D]["links_added"] == 1 and rows[E]["links_added"] == 1


def test_rerun_replaces_the_scenario_rows_and_keeps_others(tmp_path):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    decide(db, A, E, "accepted")
    run_whatif(db, Scenario(top=1))
    run_whatif(db, Scenario())
    run_whatif(db, Scenario())
    con = duckdb.connect(str(db), read_only=True)
    try:
        counts = con.execute(
            "SELECT scenario, count(*) FROM whatif_pages GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    assert counts == [("accepted", 6), ("top-1", 6)]


def test_an_accepted_link_already_in_content_is_counted_apart(tmp_path):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    decide(db, A, B, "accepted")  # the chain already links A -> B in content
    decide(db, A, E, "accepted")
    summary, _ = run_whatif(db, Scenario())
    assert (summary.links, summary.already_linked) == (2, 1)
    assert summary_lines(summary)[0] == (
        "what-if on crawl c1, scenario accepted: 2 suggested links implemented "
        "(1 already in content)"
    )


def test_scenarios_without_links_or_crawls_are_one_line_errors(tmp_path):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    with pytest.raises(WhatIfError, match="^no accepted decisions between pages of crawl c1"):
        run_whatif(db, Scenario())
    with pytest.raises(WhatIfError, match="^unknown crawl: nope$"):
        run_whatif(db, Scenario(top=1), crawl_id="nope")
    empty = tmp_path / "empty.duckdb"
    with open_db(empty):
        pass
    with pytest.raises(WhatIfError, match="^no complete crawl in the database"):
        run_whatif(empty, Scenario(top=1))
