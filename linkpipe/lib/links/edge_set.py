"""Links between pages as sorted integer codes, for the many edges that are only looked up.

A large site's navigation, header and footer links are most of its edges (3.6M of 4.2M at
100k generated pages) and candidate generation only asks whether a pair is among them. As a
set of target URLs per source they took ~60 bytes an edge in every shard worker; here an edge
is 8 bytes (source number x URLs + target number, sorted) and a lookup a binary search."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl


@dataclass(frozen=True)
class EdgeSet:
    """Edges (source URL, target URL): ``number`` gives each URL that is an end of an edge its
    place in their sorted list, ``codes`` are ``source * len(number) + target``, sorted."""

    number: dict[str, int] = field(default_factory=dict)
    codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def of_frame(cls, edges: pl.DataFrame, source: str, target: str) -> EdgeSet:
        """The distinct edges of the frame's ``source`` and ``target`` columns (nulls left out)."""
        pairs = edges.select(pl.col(source).alias("s"), pl.col(target).alias("t")).drop_nulls()
        urls = pl.concat([pairs["s"], pairs["t"]]).unique().sort()
        index = pl.DataFrame({"url": urls, "i": np.arange(len(urls), dtype=np.int64)})
        coded = pairs.join(index, left_on="s", right_on="url").join(
            index, left_on="t", right_on="url", suffix="_t"
        )
        codes = (coded["i"] * len(urls) + coded["i_t"]).unique().sort().to_numpy()
        return cls(dict(zip(urls.to_list(), range(len(urls)), strict=True)), codes)

    @classmethod
    def of_pairs(cls, pairs: list[tuple[str, str]]) -> EdgeSet:
        """The distinct edges of ``(source, target)`` pairs."""
        frame = pl.DataFrame(pairs, schema=["s", "t"], orient="row")
        return cls.of_frame(frame, "s", "t")

    def __contains__(self, edge: object) -> bool:
        if not isinstance(edge, tuple) or len(edge) != 2:
            return False
        s, t = self.number.get(edge[0]), self.number.get(edge[1])
        if s is None or t is None:
            return False
        code = s * len(self.number) + t
        at = int(np.searchsorted(self.codes, code))
        return at < len(self.codes) and int(self.codes[at]) == code

    def __len__(self) -> int:
        return len(self.codes)

    def pairs(self) -> set[tuple[str, str]]:
        """Every edge as a (source, target) pair (for tests and small sites)."""
        urls = sorted(self.number, key=self.number.__getitem__)
        n = len(urls)
        return {(urls[int(c) // n], urls[int(c) % n]) for c in self.codes}
