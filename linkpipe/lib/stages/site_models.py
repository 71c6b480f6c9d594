"""site_models for one crawl: TF-IDF and the name dictionary, built once, read by every shard.

Reads ``page_summaries`` (every shard: titles, H1s, main texts) and ``link_edges`` (the
``link_graph`` asset: content links and the anchors pages use for each other); writes
``site_models``, ``site_terms``, ``site_page_terms`` and ``site_names``. Candidate shards
(:mod:`linkpipe.lib.stages.candidate_pairs`) read them with :func:`load_site_models` and never
refit or recount.

A crawl keeps the TF-IDF statistics (vocabulary, document frequencies, IDF) of the previous
crawl of its site while at most :data:`REFIT_SHARE` of its pages are new, gone or changed since
the crawl they were fitted on (:func:`kept_fit`). An unchanged page then keeps its row and a
few edits leave every other page's weights as they were, so candidate shards can keep the rows
of sources whose neighbourhood did not change. Such a crawl updates the previous crawl's models
(:func:`updated_models`): only the pages whose text or content links changed, came or went are
counted again and get new rows; names that are new or name other pages than before (a page
came, a title changed) are counted again on the unchanged pages that may hold them, found by
their TF-IDF rows (:mod:`~linkpipe.lib.text.key_pages`), or for a name of words the kept
statistics never saw, among the pages changed since their fit. Every page is counted again
only when those are more than a quarter of the site, or for a name of words in more than
half of the pages alone. An update also keeps the previous crawl's lexical index settings and
the recall measured for them (``recall_measured_in`` says on which crawl): measuring it costs
~2 CPU-s at 10k pages (exact search for 500 pages), and at most a tenth of the pages changed
since the statistics' fit; a crawl that refits or builds its models measures it again.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from linkpipe.lib import progress
from linkpipe.lib.links.site_models import (
    ModelUpdate,
    SiteModels,
    SitePage,
    StoredRows,
    build_site_models,
    model_tables,
    models_from_rows,
    models_from_tables,
    update_site_models,
)
from linkpipe.lib.stages.common import (
    StageResult,
    copy_crawl_of_same_inputs,
    inputs_digest,
    preview,
)
from linkpipe.lib.stages.link_graph import ExistingLinks, load_existing_links
from linkpipe.lib.stages.site_index import RECALL_K, Measured, index_of
from linkpipe.lib.storage import CopiedRows, fetch_dicts, fetch_frame, open_db, write_partition
from linkpipe.lib.text.lexical_index import IndexSettings
from linkpipe.lib.text.tfidf import TfidfModel, statistics_from_frame

REFIT_SHARE = 0.1  # TF-IDF refitted when more of the pages differ from those of its fit
TEXT_BATCH = 2_000  # pages read at a time (the database is not held while models are built)


class SiteModelsMissing(RuntimeError):
    """A shard needs the crawl's site models and they were not materialized."""


def _pages(frame: pl.DataFrame) -> Iterator[SitePage]:
    """The pages of a ``url, title, h1, slug_words[, main_text]`` frame."""
    if "main_text" not in frame.columns:
        frame = frame.with_columns(pl.lit("").alias("main_text"))
    columns = frame.select("url", "title", "h1", "slug_words", "main_text").fill_null("")
    for url, title, h1, slug, main_text in columns.iter_rows():
        yield SitePage(url, title, h1, slug, main_text)


def site_pages(db_path: str | Path, crawl_id: str) -> list[SitePage]:
    """Every summarised page of the crawl, in URL order, without its main text."""
    with open_db(db_path) as con:
        return list(_pages(fetch_frame(con, "read/select_site_page_names", [crawl_id])))


def _texts(db_path: str | Path, crawl_id: str, total: int) -> Iterator[SitePage]:
    """Every summarised page with its main text, in URL order, read ``TEXT_BATCH`` at a time
    (the database is held only while a batch is read)."""
    after, done = "", 0
    while True:
        with open_db(db_path) as con:
            batch = fetch_frame(
                con, "read/select_site_texts_for_models", [crawl_id, after, TEXT_BATCH]
            )
        yield from _pages(batch)
        if batch.height < TEXT_BATCH:
            return
        after, done = batch["url"][-1], done + batch.height
        progress.report("site models", done, total)


SITE_TABLES = ("site_models", "site_terms", "site_page_terms", "site_names")


@dataclass(frozen=True)
class KeptFit:
    """The TF-IDF statistics a crawl keeps: those of ``previous`` (the latest earlier crawl
    with site models), fitted on ``fitted_in``."""

    previous: str
    fitted_in: str
    statistics: TfidfModel


def kept_fit(db_path: str | Path, crawl_id: str) -> KeptFit | None:
    """The TF-IDF statistics this crawl keeps: the previous crawl's of the same start URL,
    while at most :data:`REFIT_SHARE` of the pages differ from those of their fit (new, gone,
    another title, H1 or main text); None when the crawl refits (no previous models, too many
    changes, the fit's pages pruned)."""
    with open_db(db_path) as con:
        found = fetch_dicts(con, "read/select_tfidf_fit", [crawl_id])
        if not found or found[0]["changed"] is None:
            return None
        fit = found[0]
        if fit["changed"] > REFIT_SHARE * max(1, fit["pages"]):
            return None
        terms = fetch_frame(con, "read/select_site_terms", [fit["crawl_id"]])
    statistics = statistics_from_frame(terms, fit["fit_pages"])
    return KeptFit(fit["crawl_id"], fit["fitted_in"], statistics)


@dataclass(frozen=True)
class Updated:
    """The update (:class:`~linkpipe.lib.links.site_models.ModelUpdate`) that brought the
    models of ``previous`` to this crawl by the pages in ``changed``."""

    update: ModelUpdate
    previous: str
    changed: frozenset[str]


def updated_models(
    db_path: str | Path,
    crawl_id: str,
    kept: KeptFit,
    links: ExistingLinks,
    settings: IndexSettings | None,
) -> Updated | None:
    """The previous crawl's models brought to this crawl by the pages whose title, H1, main
    text or content links changed, came or went (:func:`update_site_models`; names that are
    new or name other pages counted again on the pages that may hold them); None when too
    many pages would be read for them."""
    previous = load_site_models(db_path, kept.previous)
    with open_db(db_path) as con:
        hashes = fetch_dicts(con, "read/select_page_text_hashes", [crawl_id, kept.previous])
        changed = sorted(
            r["url"]
            for r in hashes
            if r["now"] != r["before"] or r["links_now"] != r["links_before"]
        )
        links_before: dict[str, set[str]] = defaultdict(set)
        for r in fetch_dicts(con, "read/select_content_links_of_sources", [kept.previous, changed]):
            links_before[r["source_url"]].add(r["resolved_url"])
    before = _texts_of(db_path, kept.previous, changed)
    after = _texts_of(db_path, crawl_id, changed)

    def texts_of(urls: list[str]) -> list[tuple[SitePage, set[str]]]:
        return [(p, links.content.get(p.url, set())) for p in _texts_of(db_path, crawl_id, urls)]

    def since_fit() -> set[str]:
        with open_db(db_path) as con:
            return texts_changed_since(con, crawl_id, kept.fitted_in)

    update = update_site_models(
        previous,
        site_pages(db_path, crawl_id),
        [(p, links_before.get(p.url, set())) for p in before],
        [(p, links.content.get(p.url, set())) for p in after],
        links.anchors,
        settings,
        texts_of,
        since_fit,
    )
    return None if update is None else Updated(update, kept.previous, frozenset(changed))


def texts_changed_since(con: duckdb.DuckDBPyConnection, crawl_id: str, earlier: str) -> set[str]:
    """The summarised pages of the crawl whose title, H1 or main text differ from those of the
    ``earlier`` crawl, or that it lacks."""
    rows = fetch_dicts(con, "read/select_page_text_hashes", [crawl_id, earlier])
    return {r["url"] for r in rows if r["now"] is not None and r["now"] != r["before"]}


def _texts_of(db_path: str | Path, crawl_id: str, urls: list[str]) -> list[SitePage]:
    """The given summarised pages of the crawl with their main text, in URL order."""
    with open_db(db_path) as con:
        return list(_pages(fetch_frame(con, "read/select_site_texts_of_urls", [crawl_id, urls])))


def site_model_digest(
    db_path: str | Path, crawl_id: str, settings: IndexSettings, fitted_in: str
) -> str:
    """Digest of everything the crawl's site models are computed from: the summarised pages'
    names and main texts and the link edges (sums of row hashes,
    ``select_site_model_inputs.sql``), the crawl whose TF-IDF statistics are used, the index
    settings to start from and the code of ``linkpipe.lib``. The models are a deterministic
    function of these."""
    with open_db(db_path) as con:
        return inputs_digest(
            con, crawl_id, "read/select_site_model_inputs", repr(settings), f"fit:{fitted_in}"
        )


def materialize_site_models(
    db_path: str | Path,
    crawl_id: str,
    settings: IndexSettings | None = None,
    reuse: bool = True,
) -> StageResult:
    """Fit TF-IDF (or keep the previous crawl's statistics, :func:`kept_fit`) and count the
    names of every page of the crawl, once; measure the lexical index's recall against exact
    search on a sample (widening the index while it is below its target); write the
    four ``site_*`` tables. ``settings``: the index to start from (default
    :class:`IndexSettings`). With ``reuse``, a crawl whose inputs are those of an earlier crawl
    (:func:`site_model_digest`) copies its models, and one that keeps the statistics updates
    the previous crawl's models (the same models as a build from every page) and keeps its
    lexical index with the recall measured for it
    (:func:`~linkpipe.lib.stages.site_index.index_of`)."""
    started = time.perf_counter()
    kept = kept_fit(db_path, crawl_id)
    fitted_in = kept.fitted_in if kept else crawl_id
    digest = site_model_digest(db_path, crawl_id, settings or IndexSettings(), fitted_in)
    if reuse:
        with open_db(db_path) as con:
            copied = copy_crawl_of_same_inputs(
                con, crawl_id, "site_model_inputs", digest, SITE_TABLES
            )
        if copied is not None:
            copied.meta["fitted_in"] = fitted_in
            return copied
    models, updated = _models(db_path, crawl_id, kept, settings, update=reuse)
    measured = index_of(db_path, models, crawl_id, updated.previous if updated else None, settings)
    kept_rows, fresh = _page_rows(models, updated)
    tables: dict[str, pl.DataFrame] = model_tables(models, fresh)
    summary = _summary(models, tables, measured, time.perf_counter() - started)
    summary |= {"fitted_in": fitted_in, "fit_pages": models.tfidf.fit_pages}
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {**tables, "site_models": [summary], "site_model_inputs": [{"digest": digest}]},
            copied={"site_page_terms": kept_rows} if kept_rows is not None else None,
        )
    progress.report("site models", summary["n_pages"], summary["n_pages"])
    names = tables["site_names"].sort("mentioned_by", descending=True)
    shown = preview(names, ["phrase", "target_url", "mentioned_by", "linked_by"])
    meta: dict[str, Any] = {"copied_from": "", "page_rows_kept": 0, "updated_from": ""}
    meta |= {"names_recounted": 0, "pages_reread": 0}
    if kept_rows is not None and updated is not None:
        meta |= {"page_rows_kept": len(kept_rows.keys), "updated_from": kept_rows.from_crawl_id}
        meta |= updated.update.figures()
    return StageResult(written, shown, summary | meta)


def _page_rows(
    models: SiteModels, updated: Updated | None
) -> tuple[CopiedRows | None, list[str] | None]:
    """(the stored rows of the pages an update kept, copied by SQL rather than written again:
    the previous crawl's, to the bit; the pages whose rows are written), (None, None) when
    the models were built (every row is written)."""
    if updated is None:
        return None, None
    urls = models.tfidf.urls
    kept = [u for u in urls if u not in updated.changed]
    return CopiedRows(updated.previous, kept, "url"), [u for u in urls if u in updated.changed]


def _models(
    db_path: str | Path,
    crawl_id: str,
    kept: KeptFit | None,
    settings: IndexSettings | None,
    update: bool,
) -> tuple[SiteModels, Updated | None]:
    """The crawl's models: with ``update``, the previous crawl's updated by the pages that
    changed when the statistics are kept (:func:`updated_models`), else built from every page
    (with the kept statistics, if any); and the update (None when built)."""
    with open_db(db_path) as con:
        links = load_existing_links(con, crawl_id)
    if kept is not None and update:
        updated = updated_models(db_path, crawl_id, kept, links, settings)
        if updated is not None:
            return updated.update.models, updated
    pages = site_pages(db_path, crawl_id)
    texts = _texts(db_path, crawl_id, len(pages))
    fitted = kept.statistics if kept else None
    built = build_site_models(pages, texts, links.content, links.anchors, settings, fitted)
    return built, None


def _summary(
    models: SiteModels, tables: dict[str, pl.DataFrame], measured: Measured, took: float
) -> dict[str, Any]:
    """The ``site_models`` row: sizes, the index's settings and its measured recall."""
    index = models.index.settings
    return {
        "n_pages": len(models.tfidf.urls),
        "n_terms": len(models.tfidf.terms),
        "n_names": tables["site_names"].height,
        "posting_cap": index.posting_cap,
        "rerank": index.rerank,
        "query_terms": index.query_terms,
        "lexical_recall_at_k": round(measured.recall, 6),
        "recall_k": RECALL_K,
        "recall_queries": measured.sampled,
        "recall_measured_in": measured.measured_in,
        "build_seconds": round(took, 3),
    }


def load_site_models(
    db_path: str | Path, crawl_id: str, rows: StoredRows | None = None
) -> SiteModels:
    """The crawl's stored site models with its lexical index (rebuilt from the stored rows with
    the stored settings, no refit; with ``rows``, those of an earlier load are used and the
    page rows are not read); :class:`SiteModelsMissing` when not materialized."""
    with open_db(db_path) as con:
        found = fetch_dicts(con, "read/select_site_model", [crawl_id])
        if not found:
            raise SiteModelsMissing(
                f"crawl {crawl_id!r} has no site models: materialize site_models first"
            )
        terms = fetch_frame(con, "read/select_site_terms", [crawl_id])
        names = fetch_frame(con, "read/select_site_names", [crawl_id])
        if rows is None:
            page_terms = fetch_frame(con, "read/select_site_page_terms", [crawl_id])
    row = found[0]
    settings = IndexSettings(row["posting_cap"], row["rerank"], row["query_terms"])
    if rows is not None:
        return models_from_rows(terms, rows, names, settings, row["fit_pages"] or 0)
    return models_from_tables(terms, page_terms, names, settings, row["fit_pages"] or 0)
