"""The previous crawl's shard as columns (previous_rows): the same lookups as dicts of rows,
whatever the frames' cut; placements without a name kept as keys only."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import polars as pl
import pytest

from linkpipe.lib.links.anchor_ledger import Prefix
from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.previous_rows import ShardPairs, ShardPlacements, name_keys_of
from linkpipe.lib.links.rows import StoredPlacements


def _key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:32]


ROWS = [  # (source, target, pair digest), ordered by source
    ("/a", "/b", _key("ab")),
    ("/a", "/c", None),  # a row written before pair digests
    ("/a", "/d", _key("ad")),
    ("/b", "/a", _key("ba")),
    ("/c", "/d", _key("cd")),
    ("/c", "/é", _key("ce")),
]


def _frames(rows: list[tuple], cut: int, schema: list[str]) -> list[pl.DataFrame]:
    return [
        pl.DataFrame(rows[i : i + cut], schema=schema, orient="row")
        for i in range(0, len(rows), cut)
    ]


@pytest.mark.parametrize("cut", [1, 2, 4, 6])
def test_pairs_by_source_whatever_the_frames_cut(cut: int) -> None:
    pairs = ShardPairs.of_frames(_frames(ROWS, cut, ["source_url", "target_url", "pair_digest"]))
    digests, targets = pairs.pair_digests(), pairs.targets()
    assert dict(digests) == {
        "/a": {"/b": _key("ab"), "/d": _key("ad")},
        "/b": {"/a": _key("ba")},
        "/c": {"/d": _key("cd"), "/é": _key("ce")},
    }
    assert dict(targets) == {"/a": {"/b", "/c", "/d"}, "/b": {"/a"}, "/c": {"/d", "/é"}}
    assert digests.get("/x") is None and targets.get("/x", set()) == set()
    assert "/a" in digests and "/x" not in targets and len(targets) == 3
    assert sorted(pairs.urls) == ["/a", "/b", "/c", "/d", "/é"]  # each URL held once


def test_pairs_not_ordered_by_source_are_refused() -> None:
    rows = [ROWS[0], ROWS[3], ROWS[1]]  # /a, /b, /a again
    with pytest.raises(ValueError, match="not ordered by source"):
        ShardPairs.of_frames(_frames(rows, 2, ["source_url", "target_url", "pair_digest"]))


def test_pairs_of_no_rows() -> None:
    pairs = ShardPairs.of_frames([])
    assert len(pairs.pair_digests()) == 0 and pairs.targets().get("/a") is None


def test_name_keys_split_when_asked_for() -> None:
    keys = name_keys_of({"/a": "audit\nsite audit", "/b": "", "/c": "crawl"})
    assert keys["/a"] == ["audit", "site audit"] and keys["/b"] == [] and keys["/c"] == ["crawl"]
    assert keys.get("/x") is None and list(keys) == ["/a", "/b", "/c"]


def _placement_row(key: str, choice: AnchorChoice | None, alternatives: list, complete: bool):
    best = (
        (choice.anchor_text, choice.start, choice.end, choice.sentence, choice.sentence_start,
         choice.paragraph_idx, choice.source_kind, choice.quality)
        if choice is not None
        else (None,) * 8
    )  # fmt: skip
    return (key, *best, json.dumps(alternatives), complete)


def test_placements_without_a_name_are_keys_and_the_others_decode_as_stored() -> None:
    name = AnchorChoice("site audit", 4, 14, "Run a site audit.", 0, 0, "title", 0.9)
    other = AnchorChoice("audit", 10, 15, "Run a site audit.", 0, 0, "h1", 0.5)
    rows = [
        _placement_row(_key("none"), None, [], True),
        _placement_row(_key("named"), name, [dataclasses.asdict(other)], True),
        _placement_row(_key("prefix"), None, [], False),  # an incomplete list: not "none"
        _placement_row(_key("none too"), None, [], True),
    ]
    for cut in (1, 3, 4):
        stored = ShardPlacements.of_frames(_frames(rows, cut, list(StoredPlacements.COLUMNS)))
        reference = StoredPlacements(rows)
        assert len(stored) == 4 and set(stored) == set(reference)
        for key in reference:
            assert key in stored and stored[key] == reference[key]
        assert stored[_key("named")] == (name, other) and stored[_key("none")] == ()
        assert isinstance(stored[_key("prefix")], Prefix)
        assert _key("absent") not in stored and stored.get(_key("absent")) is None
        assert 42 not in stored
        with pytest.raises(KeyError):
            stored[_key("absent")]
