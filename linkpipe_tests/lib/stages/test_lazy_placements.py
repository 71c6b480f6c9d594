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
