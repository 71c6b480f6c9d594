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

import contextlib
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import polars as pl

from linkpipe.lib import model_cpu
from linkpipe.lib.links.anchor_ledger import complete
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import AnchorChoice
from linkpipe.lib.links.opportunity_batches import Batches
from linkpipe.lib.links.placement import place_kept
from linkpipe.lib.links.rows import CandidatePair, StoredPlacements
from linkpipe.lib.links.semantic_anchors import EncodeFn
from linkpipe.lib.processes import ordered_map
from linkpipe.lib.stages.candidate_context import site_context
from linkpipe.lib.stages.page_embeddings import cached_embedder, embed_cached
from linkpipe.lib.stages.parse_cache import ParseCache
from linkpipe.lib.stages.source_texts import source_texts_of
from linkpipe.lib.storage import keep_open, load_sql, open_db, rows_to_frame
from linkpipe.lib.threads import limited_threads, threads_per_worker

Choices = tuple[AnchorChoice, ...]
# Sources whose texts, stored parses and word vectors are read and placed at once (as many as
# a candidate shard's batch): memory holds their tokens and parses, not a whole batch's.
SOURCES_AT_ONCE = 256
# Sources placed in the stage's own process before the rest go to worker processes (a worker
# loads the parser and the model: ~10 CPU-s of fixed cost, more than a refresh places).
PARALLEL_FROM = 1_000
# Library threads of placement in the stage's own process, even with the machine to itself:
# its matrices are small, and a second BLAS thread only spins beside each parse (1k site,
# one worker: 45.1 -> 29.2 CPU-s, the same rows; docs/benchmarks.md).
IN_PROCESS_THREADS = 1
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
    "anchors_complete",
)


def anchor_encoder(db_path: str | Path, model: str, stage: str) -> EncodeFn:
    """Word vectors for semantic anchors, cached in the database by text (the model is
    loaded at the first word not in the cache)."""

    def encode(items: Sequence[str]) -> np.ndarray:
        return embed_cached(db_path, cached_embedder(model), list(items), stage)[0]

    return encode


Job = tuple[list[CandidatePair], dict[str, Choices]]  # whole sources, stored placements by key
# the job's pairs placed, how many took stored placements, the CPU its models spent
Done = tuple[list[CandidatePair], int, dict[str, float]]


@dataclass(frozen=True)
class Placing:
    """What a process needs to place the kept pairs of a crawl (sent once to each worker)."""

    db_path: str | Path
    crawl_id: str
    model: str
    site_inputs: str  # the digest of the crawl's site context (see candidate_pairs.shard_inputs)

    def place(self, job: Job, lazy: bool = True) -> Done:
        """A job's pairs with their placements: the stored ones of their keys taken, the
        others placed (the sources' texts, stored parses and word vectors read here; the new
        parses and word vectors stored); ``lazy``: as far as each source's own pairs need
        (see :func:`~linkpipe.lib.links.placement.place_kept`), else every one."""
        pairs, known = job
        before = model_cpu.spent()
        reuse = AnchorReuse(self.model, True, known)
        todo = sorted({p.source_url for p in pairs if p.anchor_key not in known})
        if not todo:
            return _taken(pairs, reuse), reuse.reused, {}
        with open_db(self.db_path) as con:
            texts = source_texts_of(con, self.crawl_id, todo)
        parses = ParseCache(self.db_path)
        parses.load(texts.values())
        encode = anchor_encoder(self.db_path, self.model, "anchors of kept pairs")
        site = site_context(self.db_path, self.crawl_id, self.site_inputs)
        out = place_kept(site, pairs, texts, encode, reuse, lazy=lazy)
        parses.store(texts.values())
        for src in texts.values():
            src.release()
        spent = {m: s - before[m] for m, s in model_cpu.spent().items()}
        return out, reuse.reused, spent


@dataclass
class _Waiting:
    """A batch waiting for its jobs: its pairs, the placements known by key, the jobs not
    done yet and the pairs they placed (by source and target)."""

    start: int
    pairs: list[CandidatePair]
    known: Mapping[str, Choices]
    jobs: int
    placed: dict[tuple[str, str], CandidatePair] = field(default_factory=dict)


@dataclass
class KeptAnchors:
    """Places the windows of a crawl's batches of kept pairs (a :data:`Placer`): the stored
    placements of their keys taken (with ``reuse``), the sources with a pair still to place
    sent in jobs of :data:`SOURCES_AT_ONCE` of them, in ``workers`` processes once more than
    :data:`PARALLEL_FROM` sources were placed here (a refresh that places few starts none).
    With ``sink``, every pair's placements go to it as frames of :data:`PLACEMENT_COLUMNS`
    (the stage writes them to ``kept_placements``; those taken by key as they were read, not
    decoded and encoded again, those of a placed source as placed: a source placed again
    extends its known prefixes as far as its own ledger looks, and storing the shorter
    ones read would make the next crawl's site ledger place them fully again); with
    ``remember`` they stay in memory for a next scoring of the same crawl (the evaluation
    scores twice)."""

    placing: Placing
    reuse: bool = True
    remember: bool = False
    workers: int = 1
    sink: Callable[[pl.DataFrame], None] | None = None
    placed: int = 0  # pairs placed
    reused: int = 0  # pairs whose stored placements were taken
    completed: int = 0  # pairs placed fully after the ledger looked past their first ones
    _held: dict[str, Choices] = field(default_factory=dict)
    _completed: set[str] = field(default_factory=set)  # keys placed fully after a prefix

    def __call__(self, batches: Batches) -> Batches:
        """The batches (whole sources, in order) with their pairs' full placements."""
        waiting: deque[_Waiting] = deque()

        def jobs() -> Iterator[Job]:
            for start, pairs in batches:
                known = self._known(pairs)
                chunks = _source_chunks(_to_place(pairs, known), SOURCES_AT_ONCE) or [[]]
                waiting.append(_Waiting(start, pairs, known, len(chunks)))
                for chunk in chunks:  # a batch with nothing to place: one empty job
                    keys = {p.anchor_key for p in chunk if p.anchor_key in known}
                    yield chunk, {k: known[k] for k in keys if k is not None}

        for placed, reused, _ in self._run(jobs()):
            batch = next(w for w in waiting if w.jobs)  # jobs end in the order they came
            batch.jobs -= 1
            batch.placed.update(((p.source_url, p.target_url), p) for p in placed)
            self.reused += reused
            self.placed += len(placed) - reused
            while waiting and not waiting[0].jobs:
                done = waiting.popleft()
                yield done.start, self._done(done)

    def place_fully(
        self, pairs: list[CandidatePair], short: set[tuple[str, str]]
    ) -> list[CandidatePair]:
        """``pairs``, those of the (source, target) in ``short`` with every placement, placed
        here (the site's anchor ledger looked past their first ones: ~1-2 % of kept pairs)."""
        todo = [p for p in pairs if (p.source_url, p.target_url) in short]
        with limited_threads(IN_PROCESS_THREADS):
            done, _, _ = self.placing.place((todo, {}), lazy=False)
        self.completed += len(done)
        self._completed.update(p.anchor_key for p in done if p.anchor_key)
        if self.remember:
            self._held.update((p.anchor_key, p.anchors) for p in done if p.anchor_key)
        if self.sink is not None:  # the prefix's row given earlier is left out by final_rows
            self.sink(placement_frame(done))
        by_pair = {(p.source_url, p.target_url): p for p in done}
        return [by_pair.get((p.source_url, p.target_url), p) for p in pairs]

    def final_rows(self, frames: Iterable[pl.DataFrame]) -> Iterator[pl.DataFrame]:
        """The frames given to ``sink``, read once every batch is placed, without the prefix
        rows of the keys :meth:`place_fully` placed again: one row a key."""
        completed = sorted(self._completed)
        full = pl.col("anchors_complete").fill_null(True)
        prefix = pl.col("anchor_key").is_in(completed) & ~full
        for frame in frames:
            yield frame.filter(~prefix) if completed else frame

    def _run(self, jobs: Iterator[Job]) -> Iterator[Done]:
        """Each job done in order: here, then in workers once enough sources were placed. The
        first :data:`PARALLEL_FROM` sources' jobs keep the file attached between them (no
        other process opens it yet; a refresh places fewer, and other processes wait no
        longer than those take)."""
        with keep_open(self.placing.db_path):
            more = yield from self._here(jobs, PARALLEL_FROM)
        if not more:
            return
        if self.workers <= 1:
            yield from self._here(jobs, None)
            return
        workers = (self.placing, threads_per_worker(self.workers))
        for done in ordered_map(_place_in_worker, jobs, self.workers, _start_worker, workers):
            model_cpu.add(done[2])  # counted with the stage's own
            yield done

    def _here(self, jobs: Iterator[Job], sources: int | None) -> Generator[Done, None, bool]:
        """Jobs done in this process until they placed ``sources`` sources (None: all); True
        when it stopped there (jobs may be left)."""
        placed = 0
        for job in jobs:
            with limited_threads(IN_PROCESS_THREADS):
                done = self.placing.place(job)
            yield done
            placed += len({p.source_url for p in job[0] if p.anchor_key not in job[1]})
            if sources is not None and placed >= sources:
                return True
        return False

    def _done(self, batch: _Waiting) -> list[CandidatePair]:
        """A batch's pairs, in order, with their placements: those its jobs placed, the others
        taken by key; kept in memory (``remember``) and given to ``sink`` (a pair taken by key
        as its stored row, a placed one as placed)."""
        pairs: list[CandidatePair] = []
        stored: list[str] = []  # keys whose stored rows are written again as they are
        rows = batch.known if isinstance(batch.known, StoredPlacements) else None
        for pair in batch.pairs:
            done = batch.placed.get((pair.source_url, pair.target_url))
            if done is None:  # every pair of its source known (a pair without a key is placed)
                done = replace(pair, anchors=batch.known[pair.anchor_key or ""])
                self.reused += 1
                if rows is not None and done.anchor_key in rows:
                    stored.append(done.anchor_key or "")
            pairs.append(done)
        if self.remember:
            self._held.update((p.anchor_key, p.anchors) for p in pairs if p.anchor_key)
        if self.sink is not None:
            taken = set(stored)
            self.sink(placement_frame([p for p in pairs if p.anchor_key not in taken]))
            if rows is not None and stored:
                self.sink(rows.frame(stored).select(PLACEMENT_COLUMNS))
        return pairs

    def _known(self, pairs: list[CandidatePair]) -> Mapping[str, Choices]:
        """The placements of the pairs' keys held in memory or stored (stored: with reuse)."""
        keys = sorted({p.anchor_key for p in pairs if p.anchor_key} - self._held.keys())
        if not self.reuse or not keys:
            return self._held
        with open_db(self.placing.db_path) as con:
            query = load_sql("read/select_kept_placements_of_keys")
            stored = StoredPlacements(con.execute(query, [keys]).fetchall())
        return {**{k: stored[k] for k in stored}, **self._held} if self._held else stored


_worker: list[Placing] = []  # a worker process's Placing (see _start_worker)
_worker_threads = contextlib.ExitStack()


def _start_worker(placing: Placing, threads: int) -> None:
    """A placing worker's setup: its ``placing``, ``threads`` library threads for good."""
    _worker[:] = [placing]
    _worker_threads.enter_context(limited_threads(threads))


def _place_in_worker(job: Job) -> Done:
    """:meth:`Placing.place` in a worker process."""
    return _worker[0].place(job)


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


def _to_place(pairs: list[CandidatePair], known: Mapping[str, Choices]) -> list[CandidatePair]:
    """The pairs of the sources with a pair whose placements are not ``known`` (or that has
    no anchor key): a source's windows are placed together."""
    sources = {p.source_url for p in pairs if p.anchor_key is None or p.anchor_key not in known}
    return [p for p in pairs if p.source_url in sources]


def _taken(pairs: list[CandidatePair], reuse: AnchorReuse) -> list[CandidatePair]:
    """The pairs with the placements ``reuse`` knows by their keys (all known)."""
    taken = ((p, reuse.take(p.anchor_key or "")) for p in pairs)
    return [replace(p, anchors=() if choices is None else choices) for p, choices in taken]


def placement_frame(pairs: Sequence[CandidatePair]) -> pl.DataFrame:
    """The ``kept_placements`` rows of the pairs with an anchor key."""
    records = [
        {**p.record(), "anchors_complete": complete(p.anchors)} for p in pairs if p.anchor_key
    ]
    return rows_to_frame(records, PLACEMENT_COLUMNS)
