"""Keeping and publishing crawls: prune the partitions of old crawls in one transaction, and
write the analysts' read-only copy of the kept crawls, swapped in atomically."""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from linkpipe.lib.storage import (
    CRAWL_TABLES,
    SHARD_TABLES,
    execute,
    fetch_dicts,
    has_current_schema,
    load_sql,
    open_db,
    registered_frame,
    transaction,
)
from linkpipe.lib.text.parsing import current_parser_identity

DEFAULT_KEEP_CRAWLS = 7
"""Crawls of each start URL kept by ``--keep-crawls`` and in the published copy (a week of
nightly runs)."""

_LEFT_OUT_VIEW = "_linkpipe_left_out"
_STALE_VIEW = "_linkpipe_stale"
_FRESH_VIEW = "_linkpipe_fresh"
# crawl-keyed tables an update copies whole again: small, and written outside runs (a crawl's
# status; `linkpipe whatif`)
ALWAYS_AGAIN = frozenset({"crawls", "crawl_runs", "whatif_pages"})
# caches of vectors and parses, the candidate step's digests of each source and the kept
# pairs' placements by key (the bookkeeping of reuse), the FAISS index's bytes and each page's
# TF-IDF row (the models' internals: the pipeline reads them, an analyst has no use for them,
# and they were a sixth of a refresh's copy), the pages' HTML and the crawler's parses (the
# crawl's input, as large as the rest of a crawl), not data to analyse; the schema marker (the
# new copy has it)
_NOT_PUBLISHED = frozenset(
    {
        "embedding_cache",
        "parse_cache",
        "crawl_parses",
        "page_html",
        "page_parses",
        "candidate_sources",
        "kept_placements",
        "ann_indexes",
        "site_page_terms",
        "linkpipe_schema",
    }
)

# tables kept by text key, as in the database: published after page_summaries, which names
# their keys (write/publish_by_text_key.sql: only the keys the copy lacks are copied)
_BY_KEY = frozenset({"text_sentences", "text_links"})

# columns of published tables that only the pipeline's reuse reads (what a row was computed
# from, the keys of its stored placements): published as NULL. They are hex digests that do
# not compress, half of the candidate rows' published bytes and of the time to copy them
BOOKKEEPING_COLUMNS = {"candidate_pairs": ("pair_digest", "anchor_key", "name_key")}


def crawls_beyond(con: duckdb.DuckDBPyConnection, keep: int) -> list[str]:
    """Crawls older than the ``keep`` most recent crawls of their start URL."""
    if keep < 1:
        raise ValueError(f"keep at least one crawl, not {keep}")
    return [r["crawl_id"] for r in fetch_dicts(con, "read/select_crawls_beyond_kept", [keep])]


def prune_crawls(con: duckdb.DuckDBPyConnection, keep: int) -> list[str]:
    """Delete every partition (crawl and shard tables) and the ``crawls`` row of the crawls
    older than the ``keep`` most recent of their start URL, in ONE transaction; return them.

    Tables that belong to the site, not to a crawl (``link_decisions``, ``page_signals``,
    ``embedding_cache``), are never touched, but for ``parse_cache``: the parses of sentences
    that no kept crawl has (an edit leaves its old sentences' parses behind) and those of
    another parser than the installed one are deleted, and pages' HTML and crawler parses
    (``page_html``, ``page_parses``, kept by content) and pages' sentences and in-text links
    (``text_sentences``, ``text_links``, kept by text key) that no kept crawl has.
    """
    pruned = crawls_beyond(con, keep)
    if not pruned:
        return []
    delete = load_sql("write/delete_crawl_partition")
    with transaction(con):
        for table in sorted(CRAWL_TABLES | SHARD_TABLES):
            for crawl_id in pruned:
                con.execute(delete.format(table=table), [crawl_id])
        for crawl_id in pruned:
            execute(con, "write/delete_crawl", [crawl_id])
        parser = current_parser_identity()
        execute(con, "write/delete_unused_parses", [parser, parser])
        execute(con, "write/delete_unused_page_html")
        execute(con, "write/delete_unused_page_parses")
        execute(con, "write/delete_unused_texts")
    return pruned


def publish_copy(
    db_path: str | Path, keep_crawls: int = DEFAULT_KEEP_CRAWLS, refreshed: str | None = None
) -> Path:
    """Write ``<name>.published.duckdb`` for readers: the ``keep_crawls`` most recent crawls of
    each start URL, the site's decisions and signals, and the views; return its path.

    When the copy in place has this code's schema and is not larger than the database, it is
    updated: only the crawls added since and ``refreshed`` (the crawl just run) are copied,
    crawls no longer kept are deleted, and the small tables that change outside runs
    (:data:`ALWAYS_AGAIN`, decisions, signals) are copied again. The update is written into
    the copy itself, in one transaction, when no reader has it open (readers never see a
    half-written copy; one that opens it during those seconds is refused by DuckDB's lock and
    opens it again, as ``linkpipe sql`` does); while a reader holds it, the update is made on
    a new file moved into place in one rename. Otherwise the copy is built table by table
    from the kept crawls in a new file (old crawls are never copied). The embedding cache is
    left out (empty)."""
    src = Path(db_path)
    dest = src.with_name(src.stem + ".published.duckdb")
    update = dest.is_file() and dest.stat().st_size <= src.stat().st_size
    update = update and has_current_schema(dest)
    if update and _publish_into(src, dest, keep_crawls, refreshed, in_place=True):
        return dest
    tmp = src.with_name(src.stem + ".publishing.tmp")
    for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
        stale.unlink(missing_ok=True)
    if update:
        shutil.copyfile(dest, tmp)
    with open_db(tmp):  # the schema and the views (nothing to do on an up-to-date copy)
        pass
    _publish_into(src, tmp, keep_crawls, refreshed if update else None, update=update)
    tmp.replace(dest)
    return dest


def _publish_into(
    src: Path,
    copy: Path,
    keep_crawls: int,
    refreshed: str | None,
    update: bool = True,
    in_place: bool = False,
) -> bool:
    """Write the kept crawls into ``copy`` (see :func:`publish_copy`; ``update``: only what
    changed since it was written). ``in_place``: ``copy`` is the one readers open, updated in
    one transaction; False, with nothing written, when a reader holds it."""
    with open_db(src) as con:
        left_out = crawls_beyond(con, keep_crawls)
        try:
            execute(con, "write/attach_published", [str(copy)])
        except (duckdb.IOException, duckdb.ResourceInUseException):
            if in_place:  # a reader has it open (another process's lock, or this process's)
                return False
            raise
        try:
            plan = _plan(con, left_out, refreshed if update else None, update)
            with (
                registered_frame(con, _LEFT_OUT_VIEW, _crawl_frame(left_out)),
                registered_frame(con, _STALE_VIEW, _crawl_frame(plan.stale)),
                registered_frame(con, _FRESH_VIEW, _crawl_frame(plan.fresh)),
                transaction(con) if in_place else contextlib.nullcontext(),
            ):
                tables = [r["table_name"] for r in fetch_dicts(con, "read/select_published_tables")]
                for table in sorted(tables, key=lambda t: t in _BY_KEY):
                    _publish_table(con, table, update)
        finally:
            execute(con, "write/detach_published")
    return True


@dataclass(frozen=True)
class _Plan:
    stale: list[str]  # crawls whose rows the copy drops (no longer kept, or copied again)
    fresh: list[str]  # crawls whose rows are copied in


def _plan(
    con: duckdb.DuckDBPyConnection, left_out: list[str], refreshed: str | None, update: bool
) -> _Plan:
    """What an update of the attached copy drops and adds (everything kept, when not updating)."""
    every = {r["crawl_id"] for r in fetch_dicts(con, "read/select_crawl_ids")}
    kept = every - set(left_out)
    held = {r["crawl_id"] for r in fetch_dicts(con, "read/select_published_crawls")}
    if not update:
        return _Plan([], sorted(kept))
    again = {refreshed} & kept if refreshed else set()
    return _Plan(sorted((held - kept) | (again & held)), sorted((kept - held) | again))


def _crawl_frame(crawl_ids: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"crawl_id": crawl_ids}, schema={"crawl_id": pl.String})


def _publish_table(con: duckdb.DuckDBPyConnection, table: str, update: bool) -> None:
    """Copy one table into the attached published copy (kept crawls only, when crawl-keyed;
    its :data:`BOOKKEEPING_COLUMNS` NULL); on an update, only the rows that changed (see
    :func:`publish_copy`)."""
    if table in _NOT_PUBLISHED:
        if update and table != "linkpipe_schema":  # a copy of earlier code may hold rows
            con.execute(load_sql("write/delete_published_table").format(table=table))
        return
    if table in _BY_KEY:
        con.execute(load_sql("write/publish_by_text_key").format(table=table))
        return
    crawl_keyed = table in CRAWL_TABLES | SHARD_TABLES | {"crawls"}
    left = BOOKKEEPING_COLUMNS.get(table)
    columns = f"* EXCLUDE ({', '.join(left)})" if left else "*"
    if update and crawl_keyed and table not in ALWAYS_AGAIN:
        con.execute(load_sql("write/delete_published_partitions").format(table=table))
        sql = load_sql("write/insert_published_fresh_partitions")
        con.execute(sql.format(table=table, columns=columns))
        return
    if update:
        con.execute(load_sql("write/delete_published_table").format(table=table))
    if crawl_keyed:
        sql = load_sql("write/insert_published_partitions")
        con.execute(sql.format(table=table, columns=columns))
    else:
        con.execute(load_sql("write/insert_published_table").format(table=table))
