"""The anchors of the pairs scoring keeps: the placer of ``link_opportunities`` and of the
evaluation (see :mod:`~linkpipe.lib.links.placement`).

The candidate step places every pair on its target's names only; the windows (the source's
word vectors, its windows' vectors and the parse of the sentences judged: most of a
placement's cost) are placed here, for the kept pairs of a batch of whole sources, just before
the anchor ledger picks among them. A kept pair's placements are a function of its anchor key
(:mod:`~linkpipe.lib.links.anchor_reuse`): they are stored by key in ``kept_placements``, and a
later crawl's kept pair of a stored key takes them. A batch all of whose pairs are known reads
no text and loads neither the site context nor a model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.placement import place_kept
from linkpipe.lib.links.rows import CandidatePair, StoredPlacements
from linkpipe.lib.links.semantic_anchors import EncodeFn
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.stages.candidate_context import site_context
from linkpipe.lib.stages.page_embeddings import cached_embedder, embed_cached
from linkpipe.lib.stages.parse_cache import ParseCache
from linkpipe.lib.stages.source_texts import source_texts_of
from linkpipe.lib.storage import load_sql, open_db, rows_to_frame

Choices = tuple[AnchorChoice, ...]
# Sources whose texts, stored parses and word vectors are read and placed at once (as many as
# a candidate shard's batch): memory holds their tokens and parses, not a whole batch's.
SOURCES_AT_ONCE = 256
PLACEMENT_COLUMNS = (
    "anchor_key",
    "anchor_text",
    "anchor_start",
    "anchor_end",
    "anchor_source",
    "anchor_quality",
    "sentence",
    "sentence_start",
    "paragraph_idx",
    "anchor_alternatives",
)


def anchor_encoder(db_path: str | Path, model: str, stage: str) -> EncodeFn:
    """Word vectors for semantic anchors, cached in the database by text (the model is
    loaded at the first word not in the cache)."""

    def encode(items: Sequence[str]) -> np.ndarray:
        return embed_cached(db_path, cached_embedder(model), list(items), stage)[0]

    return encode


@dataclass
class KeptAnchors:
    """Places the windows of batches of kept pairs of a crawl (a :data:`Placer`): the stored
    placements of their keys taken (with ``reuse``), the others placed and, with ``sink``,
    every pair's placements given to it as a frame of :data:`PLACEMENT_COLUMNS` (the stage
    writes them to ``kept_placements``). With ``remember`` every placement stays in memory
    for a next scoring of the same crawl (the evaluation scores twice)."""

    db_path: str | Path
    crawl_id: str
    model: str
    site_inputs: str  # the digest of the crawl's site context (see candidate_pairs.shard_inputs)
    reuse: bool = True
    remember: bool = False
    sink: Callable[[pl.DataFrame], None] | None = None
    placed: int = 0  # pairs placed here
    reused: int = 0  # pairs whose stored placements were taken
    _held: dict[str, Choices] = field(default_factory=dict)

    def __call__(self, pairs: list[CandidatePair]) -> list[CandidatePair]:
        """``pairs`` (whole sources, consecutive) with their full placements."""
        stored = self._stored(pairs)
        known = stored if not self._held else {**{k: stored[k] for k in stored}, **self._held}
        reuse = AnchorReuse(self.model, True, known)
        out: list[CandidatePair] = []
        for chunk in _source_chunks(pairs, SOURCES_AT_ONCE):
            todo = sorted({p.source_url for p in chunk if p.anchor_key not in known})
            out += self._place(chunk, todo, reuse) if todo else _taken(chunk, reuse)
        self.reused += reuse.reused
        self.placed += len(pairs) - reuse.reused
        if self.remember:
            self._held.update((p.anchor_key, p.anchors) for p in out if p.anchor_key)
        if self.sink is not None:
            self.sink(placement_frame(out))
        return out

    def _stored(self, pairs: list[CandidatePair]) -> StoredPlacements:
        """The stored placements of the pairs' keys not held in memory (none without reuse)."""
        keys = sorted({p.anchor_key for p in pairs if p.anchor_key} - self._held.keys())
        if not self.reuse or not keys:
            return StoredPlacements([])
        with open_db(self.db_path) as con:
            query = load_sql("read/select_kept_placements_of_keys")
            return StoredPlacements(con.execute(query, [keys]).fetchall())

    def _place(
        self, pairs: list[CandidatePair], todo: list[str], reuse: AnchorReuse
    ) -> list[CandidatePair]:
        """Place the pairs of the sources ``todo`` (the others' are all known)."""
        with open_db(self.db_path) as con:
            texts = source_texts_of(con, self.crawl_id, todo)
        parses = ParseCache(self.db_path)
        parses.load(texts.values())
        encode = anchor_encoder(self.db_path, self.model, "anchors of kept pairs")
        out = place_kept(self.site, pairs, texts, encode, reuse)
        parses.store(texts.values())
        for src in texts.values():
            src.release()
        return out

    @property
    def site(self) -> SiteContext:
        """The crawl's site context (its arrays shared with the candidate step's workers)."""
        return site_context(self.db_path, self.crawl_id, self.site_inputs)


def _source_chunks(pairs: list[CandidatePair], size: int) -> list[list[CandidatePair]]:
    """``pairs`` (a source's consecutive) cut into runs of ``size`` sources at most."""
    chunks: list[list[CandidatePair]] = []
    sources = 0
    for i, pair in enumerate(pairs):
        if i == 0 or pair.source_url != pairs[i - 1].source_url:
            sources += 1
            if not chunks or sources > size:
                chunks.append([])
                sources = 1
        chunks[-1].append(pair)
    return chunks


def _taken(pairs: list[CandidatePair], reuse: AnchorReuse) -> list[CandidatePair]:
    """The pairs with the placements ``reuse`` knows by their keys (all known)."""
    return [replace(p, anchors=reuse.take(p.anchor_key or "") or ()) for p in pairs]


def placement_frame(pairs: Sequence[CandidatePair]) -> pl.DataFrame:
    """The ``kept_placements`` rows of the pairs with an anchor key."""
    return rows_to_frame([p.record() for p in pairs if p.anchor_key], PLACEMENT_COLUMNS)
