"""candidate_pairs for one shard: semantic, lexical and mention neighbours with anchors.

Incremental by content, at three levels. A shard whose inputs (every page, embedding and link
of the site, the shard's sentences, settings, model and code: :func:`shard_inputs`) equal an
earlier crawl's shard copies that shard's rows by SQL: a refresh of an unchanged site computes
no candidates. Otherwise every source's candidates are retrieved again; a source whose row
digest (what retrieval found and the facts of the pages involved, see
:mod:`linkpipe.lib.links.source_reuse`) is the previous crawl's copies its rows by SQL, and the
others are computed, a pair's anchor placements taken from the previous crawl's row with the
same anchor key (see :mod:`linkpipe.lib.links.anchor_reuse`). The previous crawl: the latest
earlier crawl of the same start URL with ``candidate_pairs`` rows in the shard."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from linkpipe.lib import model_cpu, progress
from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.candidates import EMPTY, candidate_rows, pair_keys
from linkpipe.lib.links.kept_hits import search_salt
from linkpipe.lib.links.retrieval import CandidateLimits, retrieve
from linkpipe.lib.links.rows import CandidatePair, records
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.source_gate import (
    Computed,
    SiteChanges,
    SourceGate,
    retrieve_ungated,
)
from linkpipe.lib.links.source_reuse import SourceReuse
from linkpipe.lib.spilled import SpilledFrames, spill_folder
from linkpipe.lib.stages.ann_index import load_ann_index
from linkpipe.lib.stages.candidate_context import held_page_digests, site_context
from linkpipe.lib.stages.candidate_parses import load_name_parses, part_parses
from linkpipe.lib.stages.candidate_previous import (
    NO_PREVIOUS,
    PreviousShard,
    name_changes,
    page_digests,
    previous_shard,
    site_changes,
)
from linkpipe.lib.stages.common import StageResult, figures_digest, input_figures, preview
from linkpipe.lib.stages.kept_searches import Searching, kept_searches
from linkpipe.lib.stages.parse_cache import ParseCache
from linkpipe.lib.stages.source_texts import ShardTexts, shard_texts
from linkpipe.lib.storage import (
    CopiedRows,
    PartitionRows,
    SqlParams,
    fetch_dicts,
    one_connection,
    open_db,
    rows_to_frame,
    stored_config,
    write_partition,
)
from linkpipe.lib.text.mentions import MentionConfig
from linkpipe.lib.vectors.ann import AnnIndex

DEFAULT_K = 20  # semantic neighbours retrieved a source
SOURCE_BATCH = 256  # sources whose words are embedded (or read from the cache) in one call


@dataclass
class ShardRows:
    """A shard's computed rows, batch by batch, as frames with their pair digests, spilled to
    disk until the shard's write (as objects a row takes ~2 KB and its record ~1.4 KB more,
    as a frame ~0.9 KB, and at 100k pages a shard has over a million rows). Keeps the five
    most similar pairs for the stage's preview."""

    sources: SourceReuse | None
    frames: SpilledFrames
    closest: list[CandidatePair] = field(default_factory=list)

    def add(self, rows: list[CandidatePair]) -> None:
        """One batch's rows."""
        pairs = records(rows)
        digests = self.sources.pairs if self.sources is not None else {}
        for row, pair in zip(rows, pairs, strict=True):
            pair["pair_digest"] = digests.get(row.source_url, {}).get(row.target_url)
        if pairs:
            self.frames.append(rows_to_frame(pairs, list(pairs[0])))
        self.closest = sorted([*self.closest, *rows], key=lambda r: -r.semantic_sim)[:5]


def materialize_candidate_pairs(
    db_path: str | Path,
    crawl_id: str,
    shard: int,
    model: str,
    k: int = DEFAULT_K,
    reuse: bool = True,
) -> StageResult:
    """Semantic, lexical and named candidates for the shard's source pages, with anchors placed
    semantically (sentence and word vectors, cached), whatever the site's size.

    Reads the crawl's site models (``site_models`` asset), embeddings, ANN index and existing
    links, the shard's own main texts, sentences and link spans, and (``reuse``) the previous
    crawl's placements of the shard by anchor key. With ``reuse``, a shard whose inputs are
    those of an earlier crawl's shard (:func:`shard_inputs`) copies that shard's rows. The
    metadata says what its models cost (word vectors, parses: :mod:`~linkpipe.lib.model_cpu`)."""
    before = model_cpu.spent()
    with one_connection(db_path):  # reads and the SQL copy: one open of the file
        digest, site_digest, config = shard_inputs(db_path, crawl_id, shard, model, k)
        copied = copy_unchanged_shard(db_path, crawl_id, shard, digest) if reuse else None
        if copied is not None:
            copied.meta.update(model_cpu.since(before))
            return copied
        site = site_context(db_path, crawl_id, site_digest)
        ann = load_ann_index(db_path, crawl_id)
        texts = shard_texts(db_path, crawl_id, shard)
        with open_db(db_path) as con:
            previous = previous_shard(con, crawl_id, shard) if reuse else NO_PREVIOUS
            terms = _terms_digest(con, crawl_id)
            pages = _page_digests(con, db_path, crawl_id, site_digest, crawl_id)
            earlier = _page_digests(con, db_path, crawl_id, site_digest, previous.crawl_id)
    known = AnchorReuse(model, True, previous.placements, names=True)
    settings = f"{model}|{known.semantic}|{k}|{config}|{terms}|{site.ubiquitous_digest}"
    sources = SourceReuse(settings, pages, previous.digests, previous.pairs)
    with open_db(db_path) as con:
        salt = search_salt(ann, model, f"{terms}|{site.models.index.settings}")
        searched = Searching(site, ann, salt, shard, CandidateLimits(k=k))
        gate = _source_gate(con, crawl_id, previous, sources, earlier, searched, texts)
    parses = ParseCache(db_path)
    with spill_folder(db_path) as folder:
        rows = ShardRows(sources, SpilledFrames(folder, f"candidates-{shard}"))
        shard_candidates(site, ann, texts, shard, k, known, parses, sources, gate, rows.add)
        with open_db(db_path) as con:
            written = write_partition(
                con, crawl_id, _shard_tables(rows, digest, sources, gate), shard=shard,
                copied=_copied_sources(previous.crawl_id, sources, gate),
                then=[_mention_counts(site.mentions.config, crawl_id, shard)],
            )  # fmt: skip
    meta: dict[str, object] = {"sources": len(texts.lengths), "pairs": written["candidate_pairs"]}
    meta |= _reuse_figures(sources, gate, known, parses, previous.crawl_id)
    return StageResult(
        written,
        preview(records(rows.closest), ["source_url", "target_url", "semantic_sim", "anchor_text"]),
        meta | model_cpu.since(before),
    )


def _reuse_figures(
    sources: SourceReuse,
    gate: SourceGate,
    known: AnchorReuse,
    parses: ParseCache,
    previous: str | None,
) -> dict[str, object]:
    """What a computed shard reports of its reuse: sources copied, quiet, gated pair by pair
    or re-keyed, pairs copied, searches kept (and TF-IDF lists kept otherwise than stored:
    patched, or their cut a range), names changed, anchors and parses reused."""
    meta: dict[str, object] = {"anchor_mode": "names", "copied_from": ""}
    meta |= {"sources_copied": len(sources.kept) + len(gate.quiet)}
    meta |= {"sources_quiet": len(gate.quiet), "pairs_copied": len(sources.kept_pairs)}
    meta |= {"sources_gated_by_pair": len(gate.touched), "sources_rekeyed": len(gate.rekeyed)}
    meta |= {"sources_hits_kept": len(gate.kept_hits), "sources_lists_kept": len(gate.kept_lists)}
    rewritten = sum(not listed.as_stored for listed in gate.kept_lists.values())
    meta |= {"quiet_sources_searched": len(gate.searched), "lists_kept_rewritten": rewritten}
    meta |= {"names_added": len(gate.names.added), "names_reach": len(gate.names.reach)}
    meta |= {"anchors_reused": known.reused, "reused_from": previous or ""}
    return meta | {"parses_loaded": parses.loaded, "parses_stored": parses.stored}


def _terms_digest(con: duckdb.DuckDBPyConnection, crawl_id: str) -> str:
    """The digest of the site's TF-IDF statistics."""
    return str(fetch_dicts(con, "read/select_site_terms_digest", [crawl_id])[0]["digest"])


def _page_digests(
    con: duckdb.DuckDBPyConnection, db_path: str | Path, crawl_id: str, inputs: str, of: str | None
) -> Mapping[str, str]:
    """The page fact digests of crawl ``of`` (this crawl, or its previous one; {} for none),
    read once for all the shards this process computes of the crawl (``inputs``: the digest
    of its site context's inputs, see :func:`held_page_digests`)."""
    if of is None:
        return {}
    return held_page_digests(db_path, crawl_id, inputs, of, lambda: page_digests(con, of))


def _source_gate(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    previous: PreviousShard,
    sources: SourceReuse,
    earlier: Mapping[str, str],
    searching: Searching,
    texts: ShardTexts,
) -> SourceGate:
    """The shard's :class:`SourceGate`: the row digests' salt, the previous crawl's gate
    digests, name keys and targets, and what changed since (``earlier``: the previous crawl's
    page fact digests), the site's names included, and the embedding hits and TF-IDF lists
    no change can move (closed, computing digests only, without a previous crawl)."""
    site, limits, salt = searching.site, searching.limits, searching.salt
    if previous.crawl_id is None:
        changes = SiteChanges(frozenset(), frozenset())
        return SourceGate(sources.salt, changes, limits, open=False, search_salt=salt)
    config = site.mentions.config
    changes = site_changes(con, crawl_id, previous.crawl_id, sources.pages, earlier, config)
    names = name_changes(con, crawl_id, previous.crawl_id, site.models.tfidf, texts.lengths)
    stored = (previous.gates, previous.keys, previous.targets, previous.sims)
    kept = kept_searches(con, previous.crawl_id, searching, sources.pages, earlier)
    return SourceGate(
        sources.salt, changes, limits, *stored, texts=previous.texts, names=names,
        search_salt=salt,
        kept_hits=kept.hits, kept_lists=kept.lists, hit_urls=kept.urls,
    )  # fmt: skip


def _shard_tables(
    rows: ShardRows, digest: str, sources: SourceReuse, gate: SourceGate
) -> dict[str, PartitionRows]:
    """The computed rows of a shard (with their pair digests), its inputs digest and the row
    digest, gate digest and name keys of each source retrieved."""
    digests = [_source_row(s, d, gate.computed.get(s)) for s, d in sources.digests.items()]
    quiet = gate.rekeyed | gate.searched  # stored again, their rows copied
    digests += [_source_row(s, sources.previous[s], c) for s, c in quiet.items()]
    return {
        "candidate_pairs": iter(rows.frames),  # read back frame by frame
        "candidate_inputs": [{"digest": digest}],
        "candidate_sources": digests,
    }


def _source_row(source: str, digest: str, computed: Computed | None) -> dict[str, object]:
    """A ``candidate_sources`` row: row digest, and what the gate stores (None: no text)."""
    row: dict[str, object] = {"source_url": source, "digest": digest}
    if computed is None:
        return row | dict.fromkeys(Computed._fields)
    return row | computed._asdict()


def _mention_counts(config: MentionConfig, crawl_id: str, shard: int) -> tuple[str, SqlParams]:
    """The statement that sets the shard's mention counts and link probabilities from the
    crawl's ``site_names`` (copied rows included: see ``update_candidate_mentions.sql``)."""
    params = [config.prior_single, config.prior_multi, config.strength, crawl_id, shard]
    return "write/update_candidate_mentions", params


def _copied_sources(
    previous: str | None, sources: SourceReuse, gate: SourceGate
) -> dict[str, Sequence[CopiedRows]]:
    """The previous crawl's rows of the quiet sources and of those whose row digest is
    unchanged, those of the other sources' pairs whose pair digest is, and the quiet sources'
    stored digests."""
    if previous is None:
        return {}
    return {
        "candidate_pairs": [
            CopiedRows(previous, [*sources.kept, *gate.quiet], "source_url"),
            CopiedRows(previous, sources.kept_pairs, "pair_digest"),
        ],
        "candidate_sources": [
            CopiedRows(
                previous,
                [s for s in gate.quiet if s not in gate.rekeyed and s not in gate.searched],
                "source_url",
            )
        ],
    }


def stored_config_text(db_path: str | Path, crawl_id: str) -> str:
    """The crawl's stored settings as canonical JSON."""
    return json.dumps(stored_config(db_path, crawl_id), sort_keys=True, default=str)


_SITE_FIGURES = ("summaries", "embeddings", "pages", "links")  # of select_candidate_inputs


def shard_inputs(
    db_path: str | Path, crawl_id: str, shard: int, model: str, k: int
) -> tuple[str, str, str]:
    """(the shard's digest, its site context's digest, the crawl's settings as canonical
    JSON). The shard's digest: everything its candidate rows are computed from: the site's
    pages, embeddings, indexability and links and the shard's sentences and in-text links
    (sums of row hashes, the texts by their keys: ``select_candidate_inputs.sql``), the
    crawl's settings, the model, ``k`` and the code of ``linkpipe.lib``; the rows are a
    deterministic function of these.
    The site context's: the site-level figures among them and the digest of the site
    models' inputs."""
    config = stored_config_text(db_path, crawl_id)
    with open_db(db_path) as con:
        figures = input_figures(con, crawl_id, "read/select_candidate_inputs", shard)
        models = fetch_dicts(con, "read/select_site_model_digest", [crawl_id])
    site = {name: figures[name] for name in _SITE_FIGURES}
    site_digest = figures_digest(site, models[0]["digest"] if models else "")
    return figures_digest(figures, config, model, str(k)), site_digest, config


def copy_unchanged_shard(
    db_path: str | Path, crawl_id: str, shard: int, digest: str
) -> StageResult | None:
    """The shard's rows copied from the latest earlier crawl computed from the same inputs
    (``digest``), None when there is none."""
    with open_db(db_path) as con:
        found = fetch_dicts(con, "read/select_reusable_candidates_crawl", [crawl_id, shard, digest])
        if not found:
            return None
        previous = found[0]["crawl_id"]
        sources = [r["source_url"] for r in fetch_dicts(
            con, "read/select_shard_candidate_sources", [previous, shard]
        )]  # fmt: skip
        every = CopiedRows(previous, [previous], "crawl_id")  # all of the shard's digests
        written = write_partition(
            con, crawl_id, {"candidate_inputs": [{"digest": digest}]}, shard=shard,
            copied={
                "candidate_pairs": CopiedRows(previous, sources, "source_url"),
                "candidate_sources": every,
            },
        )  # fmt: skip
    meta = {"anchor_mode": "copied", "sources": len(sources), "pairs": written["candidate_pairs"]}
    meta |= {"sources_copied": len(sources)}
    return StageResult(written, [], meta | {"copied_from": previous, "anchors_reused": 0})


def shard_candidates(
    site: SiteContext,
    ann: AnnIndex,
    texts: ShardTexts,
    shard: int,
    k: int,
    reuse: AnchorReuse | None = None,
    parses: ParseCache | None = None,
    kept: SourceReuse | None = None,
    gate: SourceGate | None = None,
    sink: Callable[[list[CandidatePair]], None] | None = None,
) -> list[CandidatePair]:
    """Candidates of every source of the shard, ``SOURCE_BATCH`` sources at a time (their
    texts read a chunk at a time), placed on the targets' names only (windows are placed for
    the pairs scoring keeps: see :mod:`~linkpipe.lib.links.placement`). Sources whose row
    digest ``kept`` knows from the previous crawl get no rows here (``kept.kept``: the caller
    copies theirs); the sentence parses of the sources with pairs ``reuse`` does not know are
    read from and added to ``parses``. With ``gate`` (and ``kept``), the sources it finds
    quiet are not even retrieved (``gate.quiet``: the caller copies their rows). With
    ``sink``, each batch's rows go to it instead of the list returned (then empty)."""
    limits = CandidateLimits(k=k)
    rows: list[CandidatePair] = []
    done = 0
    for chunk in texts.chunks():
        sources = sorted(chunk)
        for i in range(0, len(sources), SOURCE_BATCH):
            batch = sources[i : i + SOURCE_BATCH]
            batch_rows = _batch_rows(site, ann, chunk, batch, limits, reuse, parses, kept, gate)
            if sink is not None:
                sink(batch_rows)  # reads the batch's pair digests (``kept.pairs``)
            else:
                rows += batch_rows
            if kept is not None:
                kept.forget_pairs(batch)  # the rows carry them now
            for url in batch:
                chunk[url].release()  # memory holds one batch's tokens, not the chunk's
            done += len(batch)
            progress.report(f"candidates shard {shard}", done, len(texts.lengths))
    return rows


def _batch_rows(
    site: SiteContext,
    ann: AnnIndex,
    texts: dict[str, SourceText],
    batch: list[str],
    limits: CandidateLimits,
    reuse: AnchorReuse | None,
    parses: ParseCache | None,
    kept: SourceReuse | None,
    gate: SourceGate | None,
) -> list[CandidatePair]:
    """The rows of one batch of sources (see :func:`shard_candidates`; their pair digests
    stay in ``kept.pairs`` for the caller's sink)."""
    if gate is not None and kept is not None:
        found = retrieve_ungated(site, batch, texts, ann, limits, gate, kept.pages)
    else:
        found = retrieve(site, batch, texts, ann, limits)
    touched = gate.touched if gate is not None else None
    found = kept.split(site, found, texts, touched) if kept is not None else found
    copied = {f.source: kept.copied_targets(f.source) for f in found} if kept is not None else {}
    keys = {
        f.source: pair_keys(site, reuse, f, texts[f.source], copied.get(f.source, EMPTY))
        for f in found
    }
    if parses is not None:
        load_name_parses(parses, site, reuse, found, texts, keys, copied)
    around = part_parses(parses, site) if parses is not None else None
    rows = candidate_rows(site, found, texts, None, reuse, None, keys, copied, True, around)
    if parses is not None:
        parses.store(texts[f.source] for f in found)
    return rows
