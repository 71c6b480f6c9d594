"""Shared helpers of the stage functions."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl

from linkpipe.lib.hashing import library_code_digest
from linkpipe.lib.storage import CRAWL_TABLES, CopiedRows, fetch_dicts, load_sql, write_partition


@dataclass
class StageResult:
    """Rows written per table, a small preview and extra metadata for the asset."""

    rows: dict[str, int]
    preview: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def preview(
    rows: pl.DataFrame | Sequence[Mapping[str, object]], columns: list[str], limit: int = 5
) -> list[dict[str, Any]]:
    """The first ``limit`` rows (of a frame or of row mappings) restricted to ``columns``."""
    if isinstance(rows, pl.DataFrame):
        return rows.head(limit).select(columns).to_dicts()
    return [{c: r.get(c) for c in columns} for r in rows[:limit]]


def input_figures(
    con: duckdb.DuckDBPyConnection, crawl_id: str, figures_sql: str, shard: int | None = None
) -> dict[str, Any]:
    """The figures of ``sql/<figures_sql>.sql`` for a crawl (a shard, with ``shard``):
    order-independent sums of the hashes of the rows a stage reads."""
    params: list[object] = [crawl_id] if shard is None else [crawl_id, shard]
    return fetch_dicts(con, figures_sql, params)[0]


def figures_digest(figures: Mapping[str, Any], *settings: str) -> str:
    """Digest of input figures (see :func:`input_figures`), a stage's ``settings`` and the code
    of ``linkpipe.lib``."""
    parts = [json.dumps(figures, sort_keys=True, default=str), *settings, library_code_digest()]
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def inputs_digest(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    figures_sql: str,
    *settings: str,
    shard: int | None = None,
) -> str:
    """Digest of what a stage computes a crawl's rows (a shard's, with ``shard``) from: the
    figures of ``sql/<figures_sql>.sql`` (order-independent sums of row hashes), the stage's
    ``settings`` and the code of ``linkpipe.lib``. Two crawls of one digest have the same rows
    (:func:`copy_crawl_of_same_inputs`)."""
    return figures_digest(input_figures(con, crawl_id, figures_sql, shard), *settings)


def copy_crawl_of_same_inputs(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    inputs_table: str,
    digest: str,
    tables: Sequence[str],
) -> StageResult | None:
    """Every row of ``tables`` copied from the latest earlier crawl whose digest of inputs (in
    ``inputs_table``) is ``digest``, which is recorded for this crawl too; None when there is
    no such crawl."""
    if inputs_table not in CRAWL_TABLES:
        raise ValueError(f"not a crawl table: {inputs_table}")
    sql = load_sql("read/select_crawl_of_same_inputs").format(table=inputs_table)
    found = con.execute(sql, [crawl_id, digest]).fetchall()
    if not found:
        return None
    previous = str(found[0][0])
    every = CopiedRows(previous, [previous], "crawl_id")  # all of the crawl's rows
    written = write_partition(
        con, crawl_id, {inputs_table: [{"digest": digest}]},
        copied={table: every for table in tables},
    )  # fmt: skip
    return StageResult(written, [], {"copied_from": previous})
