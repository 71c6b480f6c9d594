"""Shared helpers of the stage functions."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl


@dataclass
class StageResult:
    """Rows written per table, a small preview and extra metadata for the asset."""

    rows: dict[str, int]
    preview: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def compress_html(html: str) -> bytes:
    """zlib-compressed UTF-8 HTML for the ``html_z`` column."""
    return zlib.compress(html.encode("utf-8"), 6)


def decompress_html(blob: bytes | None) -> str:
    """Inverse of :func:`compress_html` (empty string for NULL)."""
    return zlib.decompress(blob).decode("utf-8") if blob else ""


def preview(
    rows: pl.DataFrame | Sequence[Mapping[str, object]], columns: list[str], limit: int = 5
) -> list[dict[str, Any]]:
    """The first ``limit`` rows (of a frame or of row mappings) restricted to ``columns``."""
    if isinstance(rows, pl.DataFrame):
        return rows.head(limit).select(columns).to_dicts()
    return [{c: r.get(c) for c in columns} for r in rows[:limit]]
