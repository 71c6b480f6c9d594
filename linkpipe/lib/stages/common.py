"""Shared helpers of the stage functions."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

import duckdb

from linkpipe.lib.storage import load_sql


@dataclass
class StageResult:
    """Rows written per table, a small preview and extra metadata for the asset."""

    rows: dict[str, int]
    preview: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def fetch_dicts(con: duckdb.DuckDBPyConnection, query: str, params: list[Any]) -> list[dict]:
    """Rows of ``sql/queries/<query>.sql`` as dicts."""
    cur = con.execute(load_sql(query), params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def compress_html(html: str) -> bytes:
    """zlib-compressed UTF-8 HTML for the ``html_z`` column."""
    return zlib.compress(html.encode("utf-8"), 6)


def decompress_html(blob: bytes | None) -> str:
    """Inverse of :func:`compress_html` (empty string for NULL)."""
    return zlib.decompress(blob).decode("utf-8") if blob else ""


def preview(rows: list[dict[str, Any]], columns: list[str], limit: int = 5) -> list[dict]:
    """The first ``limit`` rows restricted to ``columns``."""
    return [{c: r.get(c) for c in columns} for r in rows[:limit]]


def stored_config(db_path: Any, crawl_id: str) -> dict[str, Any]:
    """The settings stored with a crawl (``crawls.config_json``), {} when none."""
    import json

    from linkpipe.lib.storage import open_db

    with open_db(db_path) as con:
        rows = fetch_dicts(con, "read/select_crawl_config", [crawl_id])
    return json.loads(rows[0]["config_json"] or "{}") if rows else {}
