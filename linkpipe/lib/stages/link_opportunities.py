"""link_opportunities: candidates filtered, scored, capped and explained, per crawl."""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
from numpy.typing import NDArray

from linkpipe.lib import model_cpu
from linkpipe.lib.hashing import DEFAULT_SHARDS, library_code_digest
from linkpipe.lib.links.anchors import LINKABLE_BLOCKS
from linkpipe.lib.links.pair_table import PairTable, RowReader
from linkpipe.lib.links.rows import (
    CandidatePair,
    LinkOpportunity,
    OpportunityBatch,
    candidate_pairs_of_rows,
    records,
)
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.links.site_scoring import score_site
from linkpipe.lib.processes import worker_count
from linkpipe.lib.run_config import scoring_config
from linkpipe.lib.spilled import SpilledFrames, spill_folder
from linkpipe.lib.stages.candidate_context import release_site_context
from linkpipe.lib.stages.candidate_pairs import DEFAULT_K, shard_inputs
from linkpipe.lib.stages.common import StageResult, copy_crawl_of_same_inputs, preview
from linkpipe.lib.stages.kept_anchors import KeptAnchors, Placing
from linkpipe.lib.storage import (
    FRAME_ROWS,
    PartitionRows,
    execute,
    fetch_dicts,
    fetch_frame,
    fetch_frames,
    load_sql,
    memory_limit,
    open_db,
    registered_frame,
    stored_config,
    write_partition,
)
from linkpipe.lib.threads import limited_threads
from linkpipe.lib.value.signals import BusinessValue, load_business_values

OPPORTUNITY_TABLES = (
    "link_opportunities",
    "cannibalisation_pairs",
    "scoring_weights",
    "kept_placements",
)
PAIRS_VIEW = "_linkpipe_pairs"  # the pairs whose full rows are read (export_candidates_of_pairs)
EXPORT_MEMORY = "1GB"  # DuckDB's memory while it sorts the kept rows (it spills beyond)


def load_candidates(con: duckdb.DuckDBPyConnection, crawl_id: str) -> list[CandidatePair]:
    """Every shard's candidate rows of the crawl, with their placements, read as tuples (the
    evaluation's; scoring reads a :func:`load_pair_table`)."""
    cur = con.execute(load_sql("read/select_candidates_for_crawl"), [crawl_id])
    names = [d[0] for d in cur.description or []]
    return list(candidate_pairs_of_rows(names, cur.fetchall()))


def load_pair_table(db_path: str | Path, crawl_id: str, rows: int = FRAME_ROWS) -> PairTable:
    """What scoring reads of every candidate pair of the crawl, as columns; the full rows of
    the pairs it keeps are read when asked for (:func:`row_reader`)."""
    with open_db(db_path) as con:
        urls = fetch_frame(con, "read/select_candidate_urls", [crawl_id])["url"].to_list()
        frames = fetch_frames(con, "read/select_candidate_scores", [crawl_id], rows)
        return PairTable.of_frames(urls, frames, row_reader(db_path, crawl_id))


def row_reader(db_path: str | Path, crawl_id: str) -> RowReader:
    """A reader of the stored candidate rows, with their placements, of the pairs asked for
    (a sentence, an anchor and its alternatives are most of a row: only the pairs scoring
    keeps need them). One query writes them, in the order asked, to a Parquet file beside the
    database (DuckDB sorts out of core, within :data:`EXPORT_MEMORY`); they are read back a
    batch at a time, without holding the database."""

    def read(
        table: PairTable, index: NDArray[np.int64], size: int
    ) -> Iterator[list[CandidatePair]]:
        if not len(index):
            return
        keys = pl.DataFrame(
            {
                "position": np.arange(len(index), dtype=np.int64),
                "source_url": [table.urls[c] for c in table.source[index].tolist()],
                "target_url": [table.urls[c] for c in table.target[index].tolist()],
            },
            schema={"position": pl.Int64, "source_url": pl.String, "target_url": pl.String},
        )
        with spill_folder(db_path) as folder:
            path = folder / "kept.parquet"
            _export_rows(db_path, crawl_id, keys, path, size)
            stored = pq.ParquetFile(path)
            if stored.metadata.num_rows != len(index):
                raise RuntimeError(
                    f"{crawl_id}: {stored.metadata.num_rows} of the {len(index)} candidate "
                    "pairs kept were found: the crawl's candidates changed while it was scored"
                )
            for batch in stored.iter_batches(batch_size=size):
                rows = zip(*(column.to_pylist() for column in batch.columns), strict=True)
                yield list(candidate_pairs_of_rows(batch.schema.names, rows))

    return read


def _export_rows(
    db_path: str | Path, crawl_id: str, keys: pl.DataFrame, path: Path, size: int
) -> None:
    """Write the candidate rows of the pairs in ``keys``, in their ``position`` order, to
    ``path`` (row groups of ``size`` rows)."""
    with (
        open_db(db_path) as con,
        registered_frame(con, PAIRS_VIEW, keys),
        memory_limit(con, EXPORT_MEMORY),
    ):
        execute(con, "read/export_candidates_of_pairs", [crawl_id, str(path), size])


def kept_anchors(db_path: str | Path, crawl_id: str, model: str, reuse: bool) -> KeptAnchors:
    """The placer of the crawl's kept pairs (its site context: the candidate step's)."""
    inputs = shard_inputs(db_path, crawl_id, 0, model, DEFAULT_K)[1]
    return KeptAnchors(Placing(db_path, crawl_id, model, inputs), reuse)


def load_page_facts(con: duckdb.DuckDBPyConnection, crawl_id: str) -> dict[str, PageFacts]:
    """What scoring knows of each indexable page: type, link metrics, business value and
    whether its main text has a sentence a link can go in (:data:`LINKABLE_BLOCKS`)."""
    params = [crawl_id, list(LINKABLE_BLOCKS), crawl_id]
    page_rows = fetch_dicts(con, "read/select_page_facts", params)
    values = load_business_values(con, [r["url"] for r in page_rows])
    facts = {}
    for r in page_rows:
        value = values.get(r["url"], BusinessValue())
        facts[r["url"]] = PageFacts(
            title=r["title"] or "",
            page_type=r["page_type"] or "page",
            content_inlinks=r["content_inlinks"],
            click_depth=r["click_depth"],
            link_score=r["link_score"],
            is_orphan=r["is_orphan"],
            is_deep=r["is_deep"],
            has_prose=r["has_prose"],
            business_value=value.value,
            value_notes=value.notes,
        )
    return facts


def load_decisions(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], str]:
    """Editors' decisions by (source, target)."""
    rows = fetch_dicts(con, "read/select_decisions", [])
    return {(r["source_url"], r["target_url"]): r["decision"] for r in rows}


def opportunity_digest(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    facts: dict[str, PageFacts],
    decisions: dict[tuple[str, str], str],
    config: ScoringConfig,
) -> str | None:
    """Digest of everything the crawl's opportunities are computed from: every shard's
    ``candidate_inputs`` digest (which covers its candidate rows), the page facts, the
    decisions, the scoring settings and the code of ``linkpipe.lib``; None when a shard has
    no digest (its rows then cannot vouch for themselves)."""
    shards = fetch_dicts(con, "read/select_crawl_candidate_inputs", [crawl_id])
    if [r["shard"] for r in shards] != list(range(DEFAULT_SHARDS)):
        return None
    parts = [r["digest"] for r in shards] + [library_code_digest(), repr(config)]
    parts += [repr(sorted(facts.items())), repr(sorted(decisions.items()))]
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def materialize_link_opportunities(
    db_path: str | Path,
    crawl_id: str,
    model: str,
    config: ScoringConfig | None = None,
    reuse: bool = True,
) -> StageResult:
    """Filter, score, cap and explain the crawl's candidates, the kept pairs' windows placed
    with ``model``'s word vectors (see :mod:`kept_anchors`). With ``reuse``, a crawl whose
    inputs are those of an earlier crawl (:func:`opportunity_digest`) copies its rows, and a
    kept pair takes the stored placements of its anchor key."""
    try:
        return _opportunities(db_path, crawl_id, model, config, reuse)
    finally:
        release_site_context(db_path, crawl_id)  # the candidate step's and placement's


def _opportunities(
    db_path: str | Path, crawl_id: str, model: str, config: ScoringConfig | None, reuse: bool
) -> StageResult:
    """See :func:`materialize_link_opportunities`."""
    before = model_cpu.spent()
    config = config or scoring_config(stored_config(db_path, crawl_id))
    with open_db(db_path) as con:
        facts = load_page_facts(con, crawl_id)
        decisions = load_decisions(con)
        digest = opportunity_digest(con, crawl_id, facts, decisions, config)
        if reuse and digest:
            copied = copy_crawl_of_same_inputs(
                con, crawl_id, "opportunity_inputs", digest, OPPORTUNITY_TABLES
            )
            if copied is not None:
                return copied
    placer = kept_anchors(db_path, crawl_id, model, reuse)
    placer.workers = worker_count(DEFAULT_SHARDS)
    with spill_folder(db_path) as folder, limited_threads(1):  # small matrices: threads spin
        scores = score_site(load_pair_table(db_path, crawl_id), facts, decisions, config, placer)
        placements = SpilledFrames(folder, "placements")
        placer.sink = placements.append
        made = OpportunityFrames.of(scores.batches(), SpilledFrames(folder, "opportunities"))
        tables: dict[str, PartitionRows] = {
            "link_opportunities": iter(made.frames),  # read back frame by frame
            "kept_placements": placer.final_rows(placements),
            "cannibalisation_pairs": records(scores.cannibalisation),
            "scoring_weights": [scores.weights.record()],
            "opportunity_inputs": [{"digest": digest}] if digest else [],
        }
        with open_db(db_path) as con:
            written = write_partition(con, crawl_id, tables)
    return StageResult(
        written,
        preview(records(made.best), ["source_url", "target_url", "anchor_text", "score"]),
        {
            "copied_from": "",
            "in_sentence": made.in_sentence,
            "placements_made": placer.placed,
            "placements_reused": placer.reused,
            "placements_completed": placer.completed,
            **model_cpu.since(before),  # the kept pairs' word vectors and parses
            "confidence_at_least_0_5": made.confident,
            "pages_with_business_value": sum(f.business_value > 0 for f in facts.values()),
            "pages_without_prose": sum(not f.has_prose for f in facts.values()),
            "weights": f"{scores.weights.method}: {scores.weights.reason}",
            "scoring_weights": scores.weights.record(),
        },
    )


@dataclass
class OpportunityFrames:
    """A crawl's opportunity rows as frames, batch by batch, spilled to disk until the write
    (a row as an object and its record take ~2-3 KB; at 1M pages a crawl keeps ~5M rows),
    with what the stage reports of them: the five best rows, the rows placed in a sentence
    and those of confidence 0.5 or more."""

    frames: SpilledFrames
    best: list[LinkOpportunity] = field(default_factory=list)
    in_sentence: int = 0
    confident: int = 0

    @classmethod
    def of(cls, batches: Iterable[OpportunityBatch], frames: SpilledFrames) -> OpportunityFrames:
        """The frames of every batch, in order, appended to ``frames``."""
        made = cls(frames)
        for batch in batches:
            made.add(batch)
        return made

    def add(self, batch: OpportunityBatch) -> None:
        """One batch's rows (a stable sort keeps the first of equal scores, in the order the
        rows come; only a batch's own five best can be among the five best so far)."""
        if not len(batch):
            return
        columns = batch.columns
        self.frames.append(pl.DataFrame(columns, strict=False))
        score = columns["score"]
        top = sorted(heapq.nsmallest(5, range(len(batch)), key=lambda i: -score[i]))
        best = [*self.best, *(batch.row(i) for i in top)]
        self.best = sorted(best, key=lambda r: -r.score)[:5]
        self.in_sentence += columns["placement"].count("in_sentence")
        self.confident += sum(c >= 0.5 for c in columns["confidence"])
