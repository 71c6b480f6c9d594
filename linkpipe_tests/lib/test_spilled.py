"""Frames spilled to disk come back in order, with their types and values, and the folder
goes with its block."""

from __future__ import annotations

import polars as pl

from linkpipe.lib.spilled import SpilledFrames, spill_folder


def test_frames_come_back_in_order_with_their_types(tmp_path):
    db = tmp_path / "site.duckdb"
    first = pl.DataFrame(
        {"url": ["/a", "/b"], "score": [0.5, None], "note": [None, None], "n": [1, 2]},
        schema={"url": pl.String, "score": pl.Float64, "note": pl.Null, "n": pl.Int32},
    )
    second = pl.DataFrame({"url": ["/c"], "score": [0.25], "note": ["x"], "n": [3]})
    with spill_folder(db) as folder:
        assert folder.parent == tmp_path and folder.name.startswith(".linkpipe-spill-")
        frames = SpilledFrames(folder, "t")
        frames.append(first)
        frames.append(first.head(0))  # nothing to keep
        frames.append(second)
        assert len(frames) == 2 and frames.rows == 3
        assert sorted(p.name for p in folder.iterdir()) == ["t-000000.arrow", "t-000001.arrow"]
        back = list(frames)
        assert back[0].schema == first.schema and back[0].equals(first)
        assert back[1].equals(second)
        assert [f.height for f in frames] == [2, 1]  # read again: the files stay until the end
    assert not folder.exists()
