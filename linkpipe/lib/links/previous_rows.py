"""The previous crawl's rows of a candidate shard, held as columns for the next crawl's shard.

A refresh's shard worker looks the previous crawl's rows up by source (targets and pair
digests: :mod:`source_reuse`, :mod:`source_gate`), by anchor key (placements:
:mod:`anchor_reuse`) and by source again (gate digests and name keys). At 100k pages a shard
has about a million rows and 3 million stored name keys: as dicts of Python strings and tuples
they took 1.3 GiB in every worker. Here a row's target is a number into the shard's distinct
URLs and a digest or key 32 bytes in a numpy array; a source's values are made into Python
objects only when asked for; placements are kept as rows only for the few pairs whose names
were found (most candidate rows have none: their keys are a sorted array).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, TypeVar

import numpy as np
import polars as pl

from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.rows import StoredPlacements

V = TypeVar("V")
KEY = "S32"  # a digest or anchor key: 32 hex digits (no NUL byte, so numpy compares it whole)


def hex_keys(values: pl.Series) -> np.ndarray:
    """A column of 32-hex-digit keys as 32-byte strings (null: ``b""``)."""
    return np.array(values.fill_null("").to_list(), dtype=KEY)


def has_key(keys: np.ndarray, key: str) -> bool:
    """Whether the sorted array ``keys`` holds ``key`` (a binary search)."""
    wanted = key.encode()
    at = int(np.searchsorted(keys, wanted))
    return at < len(keys) and bytes(keys[at]) == wanted


class Spans(Mapping[str, V]):
    """A read-only mapping of each source to a value made, when asked for, from its rows'
    range (``spans``) by ``make``."""

    def __init__(self, spans: Mapping[str, tuple[int, int]], make: Callable[[int, int], V]):
        self._spans, self._make = spans, make

    def __getitem__(self, source: str) -> V:
        lo, hi = self._spans[source]
        return self._make(lo, hi)

    def __contains__(self, source: object) -> bool:
        return source in self._spans

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)


@dataclass(frozen=True)
class ShardPairs:
    """The rows of a shard by source: each row's target (``codes`` into ``urls``) and pair
    digest (``digests``; ``b""``: none), a source's rows the range ``spans`` gives."""

    spans: dict[str, tuple[int, int]]
    urls: list[str]
    codes: np.ndarray
    digests: np.ndarray

    @classmethod
    def of_frames(cls, frames: Iterable[pl.DataFrame]) -> ShardPairs:
        """From frames of ``source_url``, ``target_url``, ``pair_digest``, ordered by source
        (a source's rows may go on in the next frame)."""
        spans: dict[str, tuple[int, int]] = {}
        number: dict[str, int] = {}
        codes, digests, done = [], [], 0
        for frame in frames:
            for url in frame["target_url"].unique(maintain_order=True).to_list():
                number.setdefault(url, len(number))
            codes.append(frame["target_url"].replace_strict(number, return_dtype=pl.Int32))
            digests.append(hex_keys(frame["pair_digest"]))
            runs = frame.select(pl.col("source_url").rle()).unnest("source_url")
            for source, length in runs.select("value", "len").iter_rows():
                lo, end = spans.get(source, (done, done))
                if end != done:  # a source's rows must be consecutive
                    raise ValueError(f"the rows of {source!r} are not ordered by source")
                spans[source] = (lo, done + length)
                done += length
        return cls(
            spans,
            list(number),
            pl.concat(codes).to_numpy() if codes else np.zeros(0, np.int32),
            np.concatenate(digests) if digests else np.zeros(0, KEY),
        )

    def pair_digests(self) -> Mapping[str, dict[str, str]]:
        """Each source's pair digest of each target that has one."""

        def make(lo: int, hi: int) -> dict[str, str]:
            pairs = zip(self.codes[lo:hi].tolist(), self.digests[lo:hi].tolist(), strict=True)
            return {self.urls[c]: d.decode() for c, d in pairs if d}

        return Spans(self.spans, make)

    def targets(self) -> Mapping[str, set[str]]:
        """Each source's targets."""
        return Spans(self.spans, lambda lo, hi: {self.urls[c] for c in self.codes[lo:hi].tolist()})


def name_keys_of(joined: Mapping[str, str]) -> Mapping[str, list[str]]:
    """Each source's name keys from their stored text joined by newlines (a stem holds no
    line break): one string a source, split when asked for."""
    spans = {source: (i, i + 1) for i, source in enumerate(joined)}
    texts = list(joined.values())
    return Spans(spans, lambda i, _: texts[i].split("\n") if texts[i] else [])


class ShardPlacements(Mapping[str, tuple[AnchorChoice, ...]]):
    """Stored placements by anchor key: the keys whose placements are none (no name found,
    complete) as a sorted array, the others as :class:`StoredPlacements` rows."""

    def __init__(self, empty: np.ndarray, placed: StoredPlacements) -> None:
        self._empty, self._placed = empty, placed

    @classmethod
    def of_frames(cls, frames: Iterable[pl.DataFrame]) -> ShardPlacements:
        """From frames of :data:`StoredPlacements.COLUMNS`."""
        empty: list[np.ndarray] = []
        rows: list[tuple[Any, ...]] = []
        for frame in frames:
            none = (
                (pl.col("anchor_text").fill_null("") == "")
                & pl.col("anchor_alternatives").fill_null("[]").is_in(["", "[]"])
                & pl.col("anchors_complete").fill_null(True)
            )
            empty.append(hex_keys(frame.filter(none)["anchor_key"]))
            rows += frame.filter(~none).rows()
        keys = np.sort(np.concatenate(empty)) if empty else np.zeros(0, KEY)
        return cls(keys, StoredPlacements(rows))

    def __getitem__(self, key: str) -> tuple[AnchorChoice, ...]:
        if key in self._placed:
            return self._placed[key]
        if has_key(self._empty, key):
            return ()
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self._placed or has_key(self._empty, key))

    def __iter__(self) -> Iterator[str]:
        return chain(self._placed, (k.decode() for k in self._empty.tolist()))

    def __len__(self) -> int:
        return len(self._placed) + len(self._empty)
