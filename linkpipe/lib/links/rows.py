"""The typed rows of the links domain and their one mapping to DuckDB columns.

:class:`CandidatePair` is a ``candidate_pairs`` row, :class:`LinkOpportunity` a
``link_opportunities`` row and :class:`CannibalisationPair` a ``cannibalisation_pairs`` row (see
sql/schema/create_tables.sql; ``crawl_id`` and ``shard`` are added by
:func:`linkpipe.lib.storage.write_partition`). A placement of an anchor is an
:class:`~linkpipe.lib.links.anchors.AnchorChoice`; a candidate's further placements are stored as
JSON text in ``anchor_alternatives``, written by :func:`encode_alternatives` and read by
:func:`decode_alternatives` only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter, itemgetter
from typing import Any, Protocol

import polars as pl

from linkpipe.lib.links.anchor_ledger import Prefix
from linkpipe.lib.links.anchors import AnchorChoice

ColumnValue = str | int | float | bool | None
Record = dict[str, ColumnValue]


_CHOICE_FIELDS = tuple(f.name for f in fields(AnchorChoice))
# The anchor_* columns of a record's best placement, in AnchorChoice's order.
_BEST_COLUMNS = (
    "anchor_text",
    "anchor_start",
    "anchor_end",
    "sentence",
    "sentence_start",
    "paragraph_idx",
    "anchor_source",
    "anchor_quality",
)


def encode_alternatives(choices: Sequence[AnchorChoice]) -> str:
    """The ``anchor_alternatives`` JSON text of further placements, best first."""
    return json.dumps([{f: getattr(choice, f) for f in _CHOICE_FIELDS} for choice in choices])


def decode_alternatives(text: str | None) -> tuple[AnchorChoice, ...]:
    """The placements of an ``anchor_alternatives`` JSON text (NULL: none)."""
    return tuple(AnchorChoice(**item) for item in json.loads(text or "[]"))


# not frozen: a frozen init costs 4.5x (2.0 against 0.45 us; ~30 rows a source, and scoring
# reads the kept rows back as objects)
@dataclass(slots=True)
class CandidatePair:
    """A (source, target) pair worth scoring, its evidence and where its anchor could go (made
    once, never changed)."""

    source_url: str
    target_url: str
    semantic_sim: float
    lexical_sim: float  # TF-IDF cosine of main texts
    title_match: float  # quality of the best anchor when it is an exact name (0..1)
    mention_score: float  # link probability of the target's name found in the source
    mention_phrase: str | None
    mention_pages: int | None
    mention_links: int | None
    cocitation: float
    shared_neighbors: float
    already_linked_content: bool
    already_linked_nav: bool
    anchors: tuple[AnchorChoice, ...] = ()  # best first: anchor_* columns, then the alternatives
    anchor_key: str | None = None  # what ``anchors`` depend on (see links/anchor_reuse.py)
    # The name found (``site_names.name_key``): the stored mention_score / _pages / _links are
    # the crawl's counts of it, set by SQL (write/update_candidate_mentions.sql).
    mention_key: str | None = None
    # what the names-only placements depend on: the candidate step looks them up by it (see
    # links/anchor_reuse.py; ``anchor_key`` covers the target's vector too, for scoring)
    name_key: str | None = None

    @property
    def best_anchor(self) -> AnchorChoice | None:
        """The best placement, None when no sentence fits."""
        return self.anchors[0] if self.anchors else None

    def record(self) -> Record:
        """The ``candidate_pairs`` columns of this row."""
        best = self.best_anchor
        return {
            **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "anchors"},
            "anchor_text": best.anchor_text if best else None,
            "anchor_start": best.start if best else None,
            "anchor_end": best.end if best else None,
            "anchor_source": best.source_kind if best else "none",
            "anchor_quality": best.quality if best else 0.0,
            "sentence": best.sentence if best else None,
            "sentence_start": best.sentence_start if best else None,
            "paragraph_idx": best.paragraph_idx if best else None,
            "anchor_alternatives": encode_alternatives(self.anchors[1:]),
        }


_PAIR_COLUMNS = tuple(
    f.name
    for f in fields(CandidatePair)
    if f.name not in ("anchors", "anchor_key", "mention_key", "name_key")
)


def candidate_pairs_of_rows(
    names: Sequence[str], rows: Iterable[Sequence[Any]]
) -> Iterator[CandidatePair]:
    """The :class:`CandidatePair` of each ``candidate_pairs`` row read from DuckDB as a tuple,
    ``names`` being the query's column names (a site's rows: read by position, not as dicts);
    rows read without the placement columns get no anchors."""
    index = {name: i for i, name in enumerate(names)}
    columns = itemgetter(*(index[n] for n in _PAIR_COLUMNS))
    mention = _PAIR_COLUMNS.index("mention_score")
    key = index["anchor_key"]
    name = index.get("mention_key")
    name_at = index.get("name_key")
    placed = "anchor_text" in index  # else read without placements: anchors ()
    best = itemgetter(*(index[n] for n in _BEST_COLUMNS)) if placed else None
    for row in rows:
        values = list(columns(row))
        values[mention] = values[mention] or 0.0
        anchors = _anchors(best(row), row[index["anchor_alternatives"]]) if best else ()
        # values: the fields before anchors, in order (by position: dicts cost more than this)
        yield CandidatePair(  # type: ignore[misc]
            *values,
            anchors=anchors,
            anchor_key=row[key],
            mention_key=row[name] if name is not None else None,
            name_key=row[name_at] if name_at is not None else None,
        )


def _anchors(best: Sequence[Any], alternatives: str | None) -> tuple[AnchorChoice, ...]:
    """The placements of the ``anchor_*`` column values (in :data:`_BEST_COLUMNS` order) and
    the alternatives' JSON, best first; none when no sentence fits."""
    first = (AnchorChoice(*best),) if best[0] else ()
    return first + decode_alternatives(alternatives)


def anchors_of_record(record: Mapping[str, Any]) -> tuple[AnchorChoice, ...]:
    """The placements of a ``candidate_pairs`` record, best first (the ``anchor_*`` columns,
    then ``anchor_alternatives``)."""
    return _anchors([record[n] for n in _BEST_COLUMNS], record["anchor_alternatives"])


class StoredPlacements(Mapping[str, tuple[AnchorChoice, ...]]):
    """Stored placements by anchor key, each decoded when it is first asked for (most of a
    shard's are never asked for when its sources' rows are copied). ``rows``: tuples of
    ``select_shard_placements.sql`` (the key, the ``anchor_*`` columns in
    :data:`_BEST_COLUMNS` order, ``anchor_alternatives``, ``anchors_complete``:
    :data:`COLUMNS`); placements stored incomplete are a
    :class:`~linkpipe.lib.links.anchor_ledger.Prefix`."""

    COLUMNS = ("anchor_key", *_BEST_COLUMNS, "anchor_alternatives", "anchors_complete")

    def __init__(self, rows: Iterable[Sequence[Any]]) -> None:
        self._rows = {str(r[0]): r for r in rows}

    def frame(self, keys: Sequence[str]) -> pl.DataFrame:
        """The stored rows of ``keys``, in order, as they were read (:data:`COLUMNS`; the
        alternatives' JSON text not decoded)."""
        rows = [self._rows[k] for k in keys]
        return pl.DataFrame(rows, schema=self.COLUMNS, orient="row", infer_schema_length=None)

    def __getitem__(self, key: str) -> tuple[AnchorChoice, ...]:
        row = self._rows[key]
        anchors = _anchors(row[1 : 1 + len(_BEST_COLUMNS)], row[1 + len(_BEST_COLUMNS)])
        return anchors if row[-1] is not False else Prefix(anchors)

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


# not frozen: a frozen init costs 4x (10 against 2.7 us; ~5M rows at 1M pages)
@dataclass(slots=True)
class LinkOpportunity:
    """A suggested link: its score and components, the anchor placed and why, in words (made
    once, never changed)."""

    source_url: str
    target_url: str
    rank: int  # within the source, 1 = best
    score: float
    relevance: float
    semantic_sim: float
    lexical_sim: float
    title_match: float
    mention_score: float
    mention_phrase: str | None
    graph_score: float
    target_need: float
    business_value: float
    source_authority: float
    direction_factor: float
    source_type: str
    target_type: str
    anchor_text: str | None
    sentence: str | None
    anchor_start: int | None
    anchor_end: int | None
    paragraph_idx: int | None
    placement: str  # in_sentence | needs_new_sentence
    decision: str | None  # accepted | deferred | None (rejected pairs never appear)
    reason: str
    confidence: float = 0.0  # score calibrated per site, 0..1 (see links/calibration.py)

    def record(self) -> Record:
        """The ``link_opportunities`` columns of this row."""
        return dict(zip(OPPORTUNITY_COLUMNS, _OPPORTUNITY_VALUES(self), strict=True))


OPPORTUNITY_COLUMNS = tuple(f.name for f in fields(LinkOpportunity))
_OPPORTUNITY_VALUES = attrgetter(*OPPORTUNITY_COLUMNS)


@dataclass(frozen=True)
class OpportunityBatch:
    """A batch of ``link_opportunities`` rows held as columns (:data:`OPPORTUNITY_COLUMNS`, in
    order); a row object is made only when iterated."""

    columns: dict[str, list[Any]]

    def __len__(self) -> int:
        return len(self.columns["source_url"])

    def __iter__(self) -> Iterator[LinkOpportunity]:
        """The rows, in order."""
        return map(LinkOpportunity, *(self.columns[name] for name in OPPORTUNITY_COLUMNS))

    def row(self, i: int) -> LinkOpportunity:
        """The ``i``-th row."""
        return LinkOpportunity(*(self.columns[name][i] for name in OPPORTUNITY_COLUMNS))


@dataclass(frozen=True, slots=True)
class CannibalisationPair:
    """Two pages so alike in topic and purpose that one should be consolidated or changed."""

    url_a: str
    url_b: str
    semantic_sim: float
    title_sim: float
    reason: str

    def record(self) -> Record:
        """The ``cannibalisation_pairs`` columns of this row."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class Row(Protocol):
    """A typed row that knows its table columns."""

    def record(self) -> Record: ...


def records(rows: Sequence[Row]) -> list[Record]:
    """The column records of typed rows: what :func:`linkpipe.lib.storage.write_partition`
    writes (and previews show)."""
    return [row.record() for row in rows]
