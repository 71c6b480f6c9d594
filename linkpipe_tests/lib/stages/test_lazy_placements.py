"""Lazy placements (lib/links/anchor_ledger.py, placement.py): a kept pair's windows are placed
only as far as the anchor ledger looks, the rest when the site's ledger asks. With the real
model on the demo site, the suggestions are those of placing every pair's five placements up
front, with fewer placements made."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from linkpipe.lib.links import placement
from linkpipe.lib.stages import kept_anchors
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL
from linkpipe_tests.graph import placements_agree, run_demo_crawls


def _rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _placed(rows: list[tuple]) -> int:
    """Placements held by ``kept_placements`` rows (the best one and the alternatives)."""
    return sum((r[1] is not None) + len(json.loads(r[9] or "[]")) for r in rows)


@pytest.mark.slow
def test_lazy_placements_give_the_suggestions_of_full_lists(tmp_path, monkeypatch):
    db = tmp_path / "lazy.duckdb"
    monkeypatch.setenv("LINKPIPE_WORKERS", "1")
    run_demo_crawls(db, ("c1",), DEFAULT_MODEL)
    suggestions = "SELECT * FROM link_opportunities ORDER BY source_url, target_url"
    placements = "SELECT * EXCLUDE (crawl_id) FROM kept_placements ORDER BY anchor_key"
    lazy = materialize_link_opportunities(db, "c1", DEFAULT_MODEL, reuse=False)
    lazy_rows, lazy_placed = _rows(db, suggestions), _rows(db, placements)
    place_kept = kept_anchors.place_kept
    monkeypatch.setattr(
        kept_anchors, "place_kept", lambda *a, **k: place_kept(*a, **{**k, "lazy": False})
    )
    eager = materialize_link_opportunities(db, "c1", DEFAULT_MODEL, reuse=False)
    eager_rows, eager_placed = _rows(db, suggestions), _rows(db, placements)

    assert len(lazy_rows) > 30 and lazy_rows == eager_rows
    assert lazy.meta["in_sentence"] == eager.meta["in_sentence"] > 0
    assert placements_agree(lazy_placed, eager_placed)
    assert len({r[0] for r in lazy_placed}) == len(lazy_placed)  # one row a key
    assert all(r[-1] for r in eager_placed) and not all(r[-1] for r in lazy_placed)
    assert _placed(lazy_placed) < _placed(eager_placed)
    assert eager.meta["placements_completed"] == 0

    # first placements only (no page's own ledger asked for more): the site's ledger asks
    # for the rest of many pairs, placed fully in the stage's process, with the same result
    monkeypatch.setattr(kept_anchors, "place_kept", place_kept)
    monkeypatch.setattr(placement, "_looked_past", lambda group: [])
    firsts = materialize_link_opportunities(db, "c1", DEFAULT_MODEL, reuse=False)
    firsts_placed = _rows(db, placements)
    assert _rows(db, suggestions) == eager_rows and firsts.meta["placements_completed"] > 10
    assert len({r[0] for r in firsts_placed}) == len(firsts_placed)  # one row a key
    assert placements_agree(firsts_placed, eager_placed)
    print(
        f"placements lazy {_placed(lazy_placed)} eager {_placed(eager_placed)}; "
        f"completed {lazy.meta['placements_completed']} of {len(lazy_placed)} pairs, "
        f"{firsts.meta['placements_completed']} with first placements only"
    )


@pytest.mark.slow
def test_a_source_placed_again_stores_the_placements_it_extended(tmp_path, monkeypatch):
    """A source placed again (one of its pairs has a new key) extends the stored prefixes of
    its other pairs as far as its own ledger looks; those are stored, not the shorter rows
    read, so the next scoring of the same pairs takes them without placing any pair again."""
    db = tmp_path / "extended.duckdb"
    monkeypatch.setenv("LINKPIPE_WORKERS", "1")
    run_demo_crawls(db, ("c1",), DEFAULT_MODEL)
    suggestions = "SELECT * FROM link_opportunities ORDER BY source_url, target_url"
    placements = "SELECT * EXCLUDE (crawl_id) FROM kept_placements ORDER BY anchor_key"
    expected, placed = _rows(db, suggestions), _rows(db, placements)
    con = duckdb.connect(str(db))
    # the first placement only of every key stored with more and not all of them (a prefix
    # placed less deep, as an earlier crawl may have), and one key of each source forgotten
    # (its pairs are placed again)
    cut = con.execute(
        "UPDATE kept_placements SET anchor_alternatives = '[]' WHERE NOT anchors_complete "
        "AND json_array_length(anchor_alternatives) > 0 RETURNING anchor_key"
    ).fetchall()
    forgotten = con.execute(
        "DELETE FROM kept_placements WHERE anchor_key IN (SELECT min(c.anchor_key) "
        "FROM link_opportunities o JOIN candidate_pairs c USING (crawl_id, source_url, "
        "target_url) WHERE o.crawl_id = 'c1' GROUP BY o.source_url) RETURNING anchor_key"
    ).fetchall()
    con.close()
    again = materialize_link_opportunities(db, "c1", DEFAULT_MODEL)
    stored = {r[0]: len(json.loads(r[9] or "[]")) for r in _rows(db, placements)}
    lost = {k for (k,) in forgotten}
    extended = [k for (k,) in cut if k not in lost and stored.get(k, 0) > 0]  # known, longer
    taken = materialize_link_opportunities(db, "c1", DEFAULT_MODEL)

    assert len(cut) > 10 and len(forgotten) > 10
    assert again.meta["placements_made"] >= len(forgotten) and extended
    assert _rows(db, suggestions) == expected and placements_agree(_rows(db, placements), placed)
    assert taken.meta["placements_made"] == 0 and taken.meta["placements_completed"] == 0
    assert taken.meta["placements_reused"] == len(expected)


@pytest.mark.slow
def test_groups_parsed_together_place_what_groups_one_at_a_time_do(tmp_path, monkeypatch):
    """Placement groups whose parse rounds wait together (:func:`parse_rounds.drive_together`)
    give the suggestions and stored placements of groups placed one after another, the same
    sentences parsed in fewer batches."""
    from linkpipe.lib.text.phrases import PhraseJudge, default_judge

    db = tmp_path / "together.duckdb"
    monkeypatch.setenv("LINKPIPE_WORKERS", "1")
    run_demo_crawls(db, ("c1",), DEFAULT_MODEL)
    suggestions = "SELECT * FROM link_opportunities ORDER BY source_url, target_url"
    placements = "SELECT * EXCLUDE (crawl_id) FROM kept_placements ORDER BY anchor_key"
    batches: list[int] = []
    prepare = PhraseJudge.prepare

    def counted(self: PhraseJudge, sentences) -> None:  # type: ignore[no-untyped-def]
        todo = [s for s in dict.fromkeys(sentences) if s not in self.cache]
        batches.append(len(todo))
        prepare(self, sentences)

    monkeypatch.setattr(PhraseJudge, "prepare", counted)
    monkeypatch.setattr(placement, "PLACE_GROUP", 2)  # the demo's sources in many groups
    monkeypatch.setattr(kept_anchors, "PARALLEL_FROM", 10_000)  # all in this process
    runs = {}
    for at_once, batch in ((1, 1), (3, 64)):
        monkeypatch.setattr(placement, "GROUPS_AT_ONCE", at_once)
        monkeypatch.setattr(placement, "PARSE_TOGETHER", batch)
        batches.clear()
        default_judge().cache.clear()  # every sentence parsed again, none from memory
        duckdb.connect(str(db)).execute("DELETE FROM parse_cache").close()
        materialize_link_opportunities(db, "c1", DEFAULT_MODEL, reuse=False)
        runs[at_once] = (_rows(db, suggestions), _rows(db, placements), list(batches))

    (alone_rows, alone_placed, alone_batches), (rows, placed, together) = runs[1], runs[3]
    assert len(rows) > 30 and rows == alone_rows
    assert placements_agree(placed, alone_placed) and len(placed) == len(alone_placed)
    assert sum(together) == sum(alone_batches) > 100  # the same sentences parsed
    assert len([b for b in together if b]) < len([b for b in alone_batches if b])
    print(f"parse batches: one group at a time {len(alone_batches)}, together {len(together)}")
