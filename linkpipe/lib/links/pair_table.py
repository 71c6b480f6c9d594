"""A site's candidate pairs as columns: what scoring reads of every pair, nothing more.

Scoring looks at every pair of a crawl (~40 a page) but writes rows for a few per source. As
:class:`~linkpipe.lib.links.rows.CandidatePair` objects a 100k-page site's pairs took ~0.6 KB
each and most of ``link_opportunities``' time went into making them; as a :class:`PairTable`
a pair is two URL codes, six evidence numbers and a flag (57 bytes), and the full rows (with
their placements) are read only for the pairs kept (:attr:`PairTable.read_rows`).

URL codes index :attr:`PairTable.urls`, which is sorted: comparing codes orders pairs as
comparing their URLs does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl
from numpy.typing import NDArray

from linkpipe.lib.links.rows import CandidatePair

# The evidence columns, in this order (:attr:`PairTable.evidence`).
EVIDENCE = (
    "semantic_sim",
    "lexical_sim",
    "title_match",
    "mention_score",
    "cocitation",
    "shared_neighbors",
)

# The full rows (with anchors) of a table's pairs at the given indices, in their order, a
# batch of at most the given size at a time.
RowReader = Callable[["PairTable", NDArray[np.int64], int], Iterator[list[CandidatePair]]]


def _own_rows(pairs: Sequence[CandidatePair]) -> RowReader:
    """A reader of the given pairs (a table made of them keeps their order)."""

    def read(
        table: PairTable, index: NDArray[np.int64], size: int
    ) -> Iterator[list[CandidatePair]]:
        positions = table.rows[index].tolist()
        for start in range(0, len(positions), size):
            yield [pairs[i] for i in positions[start : start + size]]

    return read


@dataclass(frozen=True)
class PairTable:
    """Candidate pairs, one array entry a pair, aligned."""

    urls: list[str]  # sorted; a code is an index into it
    source: NDArray[np.int32]
    target: NDArray[np.int32]
    evidence: NDArray[np.float64]  # (pairs, 6), :data:`EVIDENCE` order
    linked: NDArray[np.bool_]  # already linked in the source's content
    rows: NDArray[np.int64]  # each pair's position in what the table was read from
    read_rows: RowReader

    def __len__(self) -> int:
        return len(self.source)

    @property
    def semantic_sim(self) -> NDArray[np.float64]:
        """The semantic similarity of each pair."""
        return self.evidence[:, 0]

    def where(self, keep: NDArray[np.bool_]) -> PairTable:
        """The pairs where ``keep`` is true, in order (this table when it is true for all)."""
        if bool(keep.all()):
            return self
        return replace(
            self,
            source=self.source[keep],
            target=self.target[keep],
            evidence=self.evidence[keep],
            linked=self.linked[keep],
            rows=self.rows[keep],
        )

    def scorable(self, pages: set[str]) -> PairTable:
        """The pairs between two different pages of ``pages`` (the indexable pages)."""
        known = np.array([u in pages for u in self.urls], dtype=np.bool_)
        return self.where((self.source != self.target) & known[self.source] & known[self.target])

    def pairs(self, index: NDArray[np.int64], size: int) -> Iterator[list[CandidatePair]]:
        """The full rows, with their placements, of the pairs at ``index``, in its order,
        ``size`` at a time."""
        return self.read_rows(self, index, size)

    @classmethod
    def of_pairs(cls, pairs: Sequence[CandidatePair]) -> PairTable:
        """The table of candidate rows already in memory (tests, evaluation)."""
        urls = sorted({p.source_url for p in pairs} | {p.target_url for p in pairs})
        code = {u: i for i, u in enumerate(urls)}
        evidence = np.array(
            [[getattr(p, name) or 0.0 for name in EVIDENCE] for p in pairs], dtype=np.float64
        ).reshape(len(pairs), len(EVIDENCE))
        return cls(
            urls,
            np.array([code[p.source_url] for p in pairs], dtype=np.int32),
            np.array([code[p.target_url] for p in pairs], dtype=np.int32),
            evidence,
            np.array([p.already_linked_content for p in pairs], dtype=np.bool_),
            np.arange(len(pairs), dtype=np.int64),
            _own_rows(pairs),
        )

    @classmethod
    def of_frames(
        cls, urls: Sequence[str], frames: Iterable[pl.DataFrame], read_rows: RowReader
    ) -> PairTable:
        """The table of frames (the batches of one read, in order) with ``source_url``,
        ``target_url``, the :data:`EVIDENCE` columns (NULL read as 0) and
        ``already_linked_content``; ``urls``: every URL in them, sorted. A batch's URLs are
        coded, then dropped: the strings of a large site's pairs never are in memory at once."""
        codes = pl.Enum(list(urls))
        parts = [_columns(frame, codes) for frame in frames]
        if not parts:
            parts = [_columns(pl.DataFrame(schema=_FRAME_SCHEMA), codes)]
        source, target, evidence, linked = (np.concatenate(c) for c in zip(*parts, strict=True))
        rows = np.arange(len(source), dtype=np.int64)
        return cls(list(urls), source, target, evidence, linked, rows, read_rows)


_FRAME_SCHEMA = {
    "source_url": pl.String,
    "target_url": pl.String,
    **dict.fromkeys(EVIDENCE, pl.Float64),
    "already_linked_content": pl.Boolean,
}


def _columns(
    frame: pl.DataFrame, codes: pl.Enum
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64], NDArray[np.bool_]]:
    """(source codes, target codes, evidence, linked) of one frame of pairs."""
    evidence = frame.select([pl.col(c).cast(pl.Float64).fill_null(0.0) for c in EVIDENCE])
    return (
        frame["source_url"].cast(codes).to_physical().to_numpy().astype(np.int32),
        frame["target_url"].cast(codes).to_physical().to_numpy().astype(np.int32),
        np.ascontiguousarray(evidence.to_numpy(), dtype=np.float64).reshape(-1, len(EVIDENCE)),
        frame["already_linked_content"].fill_null(False).to_numpy().astype(np.bool_),
    )


def as_table(pairs: PairTable | Sequence[CandidatePair]) -> PairTable:
    """``pairs`` as a :class:`PairTable` (candidate rows in memory are tabled here)."""
    return pairs if isinstance(pairs, PairTable) else PairTable.of_pairs(pairs)
