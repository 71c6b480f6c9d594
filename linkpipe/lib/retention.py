"""Keeping and publishing crawls: prune the partitions of old crawls in one transaction, and
write the analysts' read-only copy of the kept crawls, swapped in atomically."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from linkpipe.lib.storage import (
    CRAWL_TABLES,
    SHARD_TABLES,
    execute,
    fetch_dicts,
    load_sql,
    open_db,
    registered_frame,
    transaction,
)

DEFAULT_KEEP_CRAWLS = 7
"""Crawls of each start URL kept by ``--keep-crawls`` and in the published copy (a week of
nightly runs)."""

_LEFT_OUT_VIEW = "_linkpipe_left_out"
# a cache of vectors, not data to analyse; the schema marker, which the new copy already has
_NOT_PUBLISHED = frozenset({"embedding_cache", "linkpipe_schema"})


def crawls_beyond(con: duckdb.DuckDBPyConnection, keep: int) -> list[str]:
    """Crawls older than the ``keep`` most recent crawls of their start URL."""
    if keep < 1:
        raise ValueError(f"keep at least one crawl, not {keep}")
    return [r["crawl_id"] for r in fetch_dicts(con, "read/select_crawls_beyond_kept", [keep])]


def prune_crawls(con: duckdb.DuckDBPyConnection, keep: int) -> list[str]:
    """Delete every partition (crawl and shard tables) and the ``crawls`` row of the crawls
    older than the ``keep`` most recent of their start URL, in ONE transaction; return them.

    Tables that belong to the site, not to a crawl (``link_decisions``, ``page_signals``,
    ``embedding_cache``), are never touched.
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
    return pruned


def publish_copy(db_path: str | Path, keep_crawls: int = DEFAULT_KEEP_CRAWLS) -> Path:
    """Write ``<name>.published.duckdb`` for readers: the ``keep_crawls`` most recent crawls of
    each start URL, the site's decisions and signals, and the views; return its path.

    The copy is built table by table (ATTACH, INSERT ... SELECT of the kept partitions) in a
    file beside the database, so old crawls are never copied, and moved into place in one
    rename, so readers never see a half-written file. The embedding cache is left out (empty).
    """
    src = Path(db_path)
    dest = src.with_name(src.stem + ".published.duckdb")
    tmp = src.with_name(src.stem + ".publishing.tmp")
    for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
        stale.unlink(missing_ok=True)
    with open_db(tmp):  # the schema and the views
        pass
    with open_db(src) as con:
        left_out = pl.DataFrame(
            {"crawl_id": crawls_beyond(con, keep_crawls)}, schema={"crawl_id": pl.String}
        )
        execute(con, "write/attach_published", [str(tmp)])
        try:
            with registered_frame(con, _LEFT_OUT_VIEW, left_out):
                tables = fetch_dicts(con, "read/select_published_tables")
                for table in [r["table_name"] for r in tables]:
                    _publish_table(con, table)
        finally:
            execute(con, "write/detach_published")
    tmp.replace(dest)
    return dest


def _publish_table(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Copy one table into the attached published copy (kept crawls only, when crawl-keyed)."""
    if table in _NOT_PUBLISHED:
        return
    if table in CRAWL_TABLES | SHARD_TABLES | {"crawls"}:
        con.execute(load_sql("write/insert_published_partitions").format(table=table))
    else:
        con.execute(load_sql("write/insert_published_table").format(table=table))
