"""A shard's rows kept batch by batch as frames (spilled to files): every column of each row, its pair digest,
and the five most similar pairs for the preview, as if all rows had been kept as objects."""

from __future__ import annotations

from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.source_reuse import SourceReuse
from linkpipe.lib.spilled import SpilledFrames
from linkpipe.lib.stages.candidate_pairs import ShardRows


def _pair(source: str, target: str, sim: float, phrase: str | None = None) -> CandidatePair:
    return CandidatePair(
        source, target, sim, 0.1, 0.0, 0.0, phrase, None, None, 0.0, 0.0, False, False
    )


def test_batches_become_frames_with_pair_digests_and_the_closest_pairs(tmp_path):
    sources = SourceReuse("salt", {}, {}, {})
    sources.pairs = {"/a": {"/b": "d-ab", "/c": "d-ac"}, "/d": {"/b": "d-db"}}
    rows = ShardRows(sources, SpilledFrames(tmp_path))
    first = [_pair("/a", "/b", 0.5), _pair("/a", "/c", 0.9, "Cats"), _pair("/a", "/e", 0.7)]
    second = [_pair("/d", "/b", 0.9), _pair("/d", "/c", 0.2)]
    rows.add(first)
    rows.add([])
    rows.add(second)
    assert [f.height for f in rows.frames] == [3, 2] and len(list(tmp_path.iterdir())) == 2
    got = [r for f in rows.frames for r in f.iter_rows(named=True)]
    assert [(r["source_url"], r["target_url"], r["pair_digest"]) for r in got] == [
        ("/a", "/b", "d-ab"), ("/a", "/c", "d-ac"), ("/a", "/e", None),
        ("/d", "/b", "d-db"), ("/d", "/c", None),
    ]  # fmt: skip
    assert [r["mention_phrase"] for r in got] == [None, "Cats", None, None, None]
    assert got[0] == {**_pair("/a", "/b", 0.5).record(), "pair_digest": "d-ab"}
    everything = sorted(first + second, key=lambda r: -r.semantic_sim)[:5]
    assert rows.closest == everything  # ties (0.9) in the order the rows came
    assert [r.target_url for r in rows.closest[:2]] == ["/c", "/b"]
