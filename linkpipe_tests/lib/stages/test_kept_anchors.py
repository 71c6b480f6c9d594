"""The kept pairs' placer (``lib/stages/kept_anchors.py``) over several batches: a source all
of whose pairs have stored placements takes them without a job, a source with one new pair is
placed in a job, and every batch comes back in order with the placements and the
``kept_placements`` rows a placement of every pair anew gives."""

from __future__ import annotations

from itertools import groupby

import polars as pl

from linkpipe.lib.links.anchor_ledger import complete
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.stages.link_opportunities import kept_anchors, load_candidates
from linkpipe.lib.storage import host, open_db
from linkpipe_tests.graph import placements_agree, prefix_consistent, run_demo_crawls


def _batches(db, crawl_id: str) -> tuple[list[list[CandidatePair]], CandidatePair]:
    """Four batches of whole sources: the first two and the last of kept pairs only, the
    third with one pair scoring did not keep (no stored placements) besides its kept ones;
    and that pair."""
    with open_db(db) as con:
        stored = {k for (k,) in con.execute("SELECT anchor_key FROM kept_placements").fetchall()}
        pairs = sorted(load_candidates(con, crawl_id), key=lambda p: (p.source_url, p.target_url))
    sources = [list(group) for _, group in groupby(pairs, key=lambda p: p.source_url)]
    kept = [[p for p in s if p.anchor_key in stored] for s in sources]
    usable = [n for n, s in enumerate(kept) if len(s) >= 2 and len(s) < len(sources[n])]
    assert len(usable) >= 5
    a, b, c, d, e = (kept[n] for n in usable[:5])
    new = next(p for p in sources[usable[3]] if p.anchor_key not in stored)
    return [a + b, c, [*d, new], e], new


def test_stored_sources_take_their_placements_and_a_new_pair_is_placed(tmp_path, fake_model):
    db = tmp_path / "k.duckdb"
    run_demo_crawls(db, ("c1",), fake_model)
    batches, new = _batches(db, "c1")
    starts = [sum(len(b) for b in batches[:n]) for n in range(len(batches))]
    rows: dict[bool, list[pl.DataFrame]] = {True: [], False: []}
    done: dict[bool, list[tuple[int, list[CandidatePair]]]] = {}
    counts = {}
    for reuse in (True, False):
        placer = kept_anchors(db, "c1", fake_model, reuse)
        placer.sink = rows[reuse].append
        placing = placer(iter(zip(starts, batches, strict=True)))
        done[reuse] = [next(placing)]
        if not reuse:  # placing in this process: the file stays attached between its jobs
            assert host.attached(db)
        done[reuse] += list(placing)
        assert not host.attached(db)  # and goes once every batch is placed
        counts[reuse] = (placer.placed, placer.reused)
    pairs = sum(len(b) for b in batches)
    assert counts == {True: (1, pairs - 1), False: (pairs, 0)}
    assert [start for start, _ in done[True]] == starts
    for (_, reused), (_, fresh), batch in zip(done[True], done[False], batches, strict=True):
        assert [(p.source_url, p.target_url) for p in reused] == [
            (p.source_url, p.target_url) for p in batch
        ]
        assert all(  # the same placements, as far as each was made (see graph.py)
            prefix_consistent(a.anchors, b.anchors, complete(a.anchors), complete(b.anchors))
            for a, b in zip(reused, fresh, strict=True)
        )
    placed = {(p.source_url, p.target_url): p for _, b in done[True] for p in b}
    assert placed[(new.source_url, new.target_url)].anchors  # placed in the job: names, windows
    # further placements where a page's pairs compete for their first ones (lazily: as far
    # as the ledger placing the page looks)
    assert sum(len(p.anchors) for p in placed.values()) > pairs

    def table(frames: list[pl.DataFrame]) -> list[tuple]:
        return sorted(pl.concat(frames, how="diagonal_relaxed").rows())

    # the stored rows written as they were read: the rows of encoding every placement again
    assert len(rows[True]) > len(rows[False])
    assert placements_agree(table(rows[True]), table(rows[False]))
    assert len(table(rows[True])) == pairs
