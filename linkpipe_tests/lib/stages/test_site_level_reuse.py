"""Site-level stages of a crawl whose inputs equal an earlier crawl's copy its rows: link graph,
topic clusters, site models and scored opportunities; each copy equals a recomputation, and a
new editor's decision is a new input of the opportunities."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import duckdb
import numpy as np
import pytest

from linkpipe.lib.links.site_scoring import score_site
from linkpipe.lib.stages import kept_anchors
from linkpipe.lib.stages.link_graph import GRAPH_TABLES, materialize_link_graph
from linkpipe.lib.stages.link_opportunities import (
    load_candidates,
    load_decisions,
    load_page_facts,
    load_pair_table,
    materialize_link_opportunities,
)
from linkpipe.lib.stages.site_models import SITE_TABLES, materialize_site_models
from linkpipe.lib.stages.topic_clusters import CLUSTER_TABLES, materialize_topic_clusters
from linkpipe.lib.storage import open_db
from linkpipe_tests.graph import placements_agree, run_demo_crawls

TABLES = {
    "link_opportunities": "source_url, target_url, rank, score, confidence, anchor_text, reason",
    "cannibalisation_pairs": "url_a, url_b, semantic_sim, reason",
    "scoring_weights": "*",
    "kept_placements": "* EXCLUDE (crawl_id)",
}


def _rows(db: Path, table: str, crawl_id: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            f"SELECT {TABLES[table]} FROM {table} WHERE crawl_id = ? ORDER BY ALL", [crawl_id]
        ).fetchall()
    finally:
        con.close()


def _site_models(
    db: Path, crawl_id: str, tables: tuple[str, ...] = SITE_TABLES
) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        # every column but the time a build took and the crawl its recall was measured on
        built = ", build_seconds, recall_measured_in"
        return {
            t: con.execute(
                f"SELECT * EXCLUDE (crawl_id{built if t == 'site_models' else ''}) "
                f"FROM {t} WHERE crawl_id = ? ORDER BY ALL",
                [crawl_id],
            ).fetchall()
            for t in tables
        }
    finally:
        con.close()


def _snapshot(db: Path, crawl_id: str) -> dict[str, list[tuple]]:
    rows = {t: _rows(db, t, crawl_id) for t in TABLES}
    rows["scoring_weights"] = [r[1:] for r in rows["scoring_weights"]]  # crawl_id first
    return rows


def _agree(a: dict[str, list[tuple]], b: dict[str, list[tuple]]) -> bool:
    """Two snapshots hold the same rows, the kept pairs' placements as far as each was made
    (lazily: as far as the crawl's anchor ledger needed)."""
    rest = [t for t in a if t != "kept_placements"]
    same = all(a[t] == b[t] for t in rest) and a.keys() == b.keys()
    return same and placements_agree(a["kept_placements"], b["kept_placements"])


def test_unchanged_inputs_copy_the_scored_rows_and_a_decision_scores_again(
    tmp_path, fake_model, monkeypatch
):
    db = tmp_path / "o.duckdb"
    run_demo_crawls(db, ("c1", "c2"), fake_model)
    for tables, stage in ((GRAPH_TABLES, materialize_link_graph),
                          (CLUSTER_TABLES, materialize_topic_clusters)):  # fmt: skip
        rows = _site_models(db, "c1", tables)
        assert all(rows.values()) and _site_models(db, "c2", tables) == rows
        assert stage(db, "c2").meta == {"copied_from": "c1"}
        assert stage(db, "c2", reuse=False).meta["copied_from"] == ""
        assert _site_models(db, "c2", tables) == rows  # recomputed: the very same rows
    models = _site_models(db, "c1")
    assert all(models.values()) and _site_models(db, "c2") == models
    assert materialize_site_models(db, "c2").meta == {"copied_from": "c1", "fitted_in": "c1"}
    rebuilt = materialize_site_models(db, "c2", reuse=False)  # c1's TF-IDF statistics kept
    assert rebuilt.meta["copied_from"] == "" and rebuilt.meta["n_pages"] > 50
    assert _site_models(db, "c2") == models  # rebuilt: the very same models
    assert rebuilt.meta["recall_measured_in"] == "c2"  # measured again, the same recall

    first, copied = _snapshot(db, "c1"), _snapshot(db, "c2")
    assert first["link_opportunities"] and copied == first
    assert materialize_link_opportunities(db, "c2", fake_model).meta == {"copied_from": "c1"}
    recomputed = materialize_link_opportunities(db, "c2", fake_model, reuse=False)
    assert recomputed.meta["copied_from"] == "" and _snapshot(db, "c2") == copied

    source, target = copied["link_opportunities"][0][:2]
    con = duckdb.connect(str(db))
    con.execute(
        "INSERT INTO link_decisions (source_url, target_url, decision) VALUES (?, ?, 'rejected')",
        [source, target],
    )
    con.close()
    again = materialize_link_opportunities(db, "c2", fake_model)
    assert again.meta["copied_from"] == ""  # the decision is new: scored again, without it
    pairs = {row[:2] for row in _rows(db, "link_opportunities", "c2")}
    assert (source, target) not in pairs and len(pairs) >= len(copied["link_opportunities"]) - 1
    # the kept pairs' windows: taken from the stored placements of their keys, but a new pair's
    assert again.meta["placements_reused"] >= len(pairs) - 1
    assert again.meta["placements_made"] + again.meta["placements_reused"] == len(pairs)
    reused = _snapshot(db, "c2")
    assert len(reused["kept_placements"]) == len(pairs)
    fresh = materialize_link_opportunities(db, "c2", fake_model, reuse=False)
    assert (fresh.meta["placements_made"], fresh.meta["placements_reused"]) == (len(pairs), 0)
    assert _agree(_snapshot(db, "c2"), reused)  # every kept pair placed anew: the same rows
    # placed by two worker processes, a few sources a job: the same rows again
    monkeypatch.setattr(kept_anchors, "SOURCES_AT_ONCE", 4)
    monkeypatch.setattr(kept_anchors, "PARALLEL_FROM", 8)
    monkeypatch.setenv("LINKPIPE_WORKERS", "2")
    parallel = materialize_link_opportunities(db, "c2", fake_model, reuse=False)
    assert parallel.meta["placements_made"] == len(pairs)
    assert _agree(_snapshot(db, "c2"), reused)
    con = duckdb.connect(str(db))  # one link's text changed: a new input of the link graph
    con.execute(
        "UPDATE crawl_links SET anchor_text = 'a changed anchor' WHERE crawl_id = 'c2' AND rowid = "
        "(SELECT min(rowid) FROM crawl_links WHERE crawl_id = 'c2' AND internal)"
    )
    con.close()
    assert materialize_link_graph(db, "c2").meta["copied_from"] == ""


def test_rows_read_for_the_kept_pairs_only_give_the_same_rows(tmp_path, fake_model):
    """The stage reads every pair as columns (a PairTable) and then the full rows of the pairs
    scoring keeps: the same opportunities as scoring fully loaded rows."""
    db = tmp_path / "p.duckdb"
    run_demo_crawls(db, ("c1",), fake_model)
    with open_db(db) as con:
        facts, decisions = load_page_facts(con, "c1"), load_decisions(con)
        full = load_candidates(con, "c1")
    table = load_pair_table(db, "c1")
    assert len(table) == len(full) > 100
    assert sorted(zip(table.source.tolist(), table.target.tolist(), strict=True)) == sorted(
        (table.urls.index(c.source_url), table.urls.index(c.target_url)) for c in full
    )
    read_in_batches = load_pair_table(db, "c1", rows=7)  # the URLs coded a batch at a time
    assert read_in_batches.urls == table.urls
    for column in ("source", "target", "evidence", "linked"):
        assert np.array_equal(getattr(read_in_batches, column), getattr(table, column))
    eager = score_site(full, facts, decisions).opportunities
    lazy = score_site(table, facts, decisions)
    assert [r.record() for r in lazy.opportunities] == [r.record() for r in eager]
    per_source = Counter(r.source_url for r in eager)
    for size in (1, 7):  # read back from the database batch by batch, in order
        batches = list(lazy.batches(size))
        assert [r.record() for b in batches for r in b] == [r.record() for r in eager]
        sources = [{r.source_url for r in b} for b in batches]  # whole sources, never split
        assert sum(len(s) for s in sources) == len(per_source) > 1
        for batch, held in zip(batches, sources, strict=True):
            assert len(batch) == sum(per_source[s] for s in held)
            assert len(batch) < size + max(per_source[s] for s in held)
    assert not list(tmp_path.glob(".linkpipe-*"))  # the export's and the spilled files are gone
    assert sum(r.anchor_text is not None for r in eager) > 20
    # a source whose main text became code listings alone has no suggestion left
    source = eager[0].source_url
    assert all(f.has_prose for f in facts.values())
    with open_db(db) as con:
        con.execute(
            "UPDATE text_sentences SET block_kind = 'preformatted' WHERE block_kind <> 'heading' "
            "AND text_key = (SELECT text_key FROM page_summaries WHERE crawl_id = 'c1' AND url = ?)",
            [source],
        )
        code_only = load_page_facts(con, "c1")
    assert not code_only[source].has_prose
    assert sum(not f.has_prose for f in code_only.values()) == 1
    rescored = score_site(full, code_only, decisions).opportunities
    assert source not in {r.source_url for r in rescored}
    assert {r.source_url for r in rescored} == {r.source_url for r in eager} - {source}
    stored = _rows(db, "link_opportunities", "c1")
    assert sorted((r.source_url, r.target_url, r.rank) for r in eager) == sorted(
        row[:3] for row in stored
    )


def test_kept_rows_missing_from_the_database_fail_the_read(tmp_path, fake_model):
    """A kept pair whose candidate row went between the read of the pairs and that of their
    rows fails the stage with a message, not with rows out of step."""
    db = tmp_path / "p.duckdb"
    run_demo_crawls(db, ("c1",), fake_model)
    with open_db(db) as con:
        facts, decisions = load_page_facts(con, "c1"), load_decisions(con)
    scores = score_site(load_pair_table(db, "c1"), facts, decisions)
    first = scores.opportunities[0]
    with open_db(db) as con:
        con.execute(
            "DELETE FROM candidate_pairs WHERE crawl_id = 'c1' AND source_url = ? "
            "AND target_url = ?",
            [first.source_url, first.target_url],
        )
    with pytest.raises(RuntimeError, match="candidate pairs kept were found"):
        list(scores.batches(5))
    assert not list(tmp_path.glob(".linkpipe-*"))
