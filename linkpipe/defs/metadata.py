"""Materialization metadata of the assets: rows per table, a Markdown preview, the schema of
each table written, and distributions as plots.

Dagster has no chart metadata type. A distribution is given three ways: a Markdown table with a
bar per bin (the UI renders Markdown metadata, and so does any Markdown viewer), a Vega-Lite
spec with the bins as data (JSON, for a notebook or the Vega editor), and its mean, median and
90th percentile as numbers, which the UI's asset page plots across materializations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
import duckdb

from linkpipe.lib.stages import StageResult
from linkpipe.lib.storage import SqlParams, fetch_dicts

BAR_WIDTH = 30  # characters of the longest bar
VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"

Metadata = dict[str, dg.MetadataValue]


def stage_metadata(result: StageResult) -> Metadata:
    """Rows per table (and in all), a Markdown preview of the first rows, the stage's extras."""
    meta: Metadata = {f"rows_{table}": dg.MetadataValue.int(n) for table, n in result.rows.items()}
    meta["dagster/row_count"] = dg.MetadataValue.int(sum(result.rows.values()))
    if result.preview:
        meta["preview"] = markdown_table(result.preview)
    for key, value in result.meta.items():
        meta[key] = dg.MetadataValue.json(value) if isinstance(value, dict | list) else value
    return meta


def markdown_table(rows: Sequence[Mapping[str, Any]], width: int = 80) -> dg.MetadataValue:
    """Rows as a Markdown table (the columns of the first row), each cell cut at ``width``."""
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c])[:width] for c in cols) + " |" for r in rows]
    return dg.MetadataValue.md("\n".join(lines))


def thresholds_metadata(thresholds: Sequence[Mapping[str, Any]]) -> Metadata:
    """The indexability thresholds of a crawl as a Markdown table (``thresholds_table``):
    rule, page type, value, how it was found."""
    if not thresholds:
        return {}
    rows = [
        {
            "rule": t["rule"],
            "page_type": t["page_type"] or "(site)",
            "threshold": f"{t['threshold']:g}",
            "mode": t["mode"],
            "pages": t["pages"],
            "basis": t["basis"],
        }
        for t in thresholds
    ]
    return {"thresholds_table": markdown_table(rows, width=120)}


def table_schema(con: duckdb.DuckDBPyConnection, table: str) -> dg.TableSchema:
    """The columns of a stored table, with their DuckDB types and whether they may be NULL."""
    return dg.TableSchema(
        columns=[
            dg.TableColumn(
                name=c["column_name"],
                type=c["data_type"],
                constraints=dg.TableColumnConstraints(nullable=bool(c["nullable"])),
            )
            for c in fetch_dicts(con, "read/select_table_schema", [table])
        ]
    )


def table_metadata(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> Metadata:
    """``dagster/table_name`` and ``dagster/column_schema`` of the asset's main table (the
    first written), ``column_schema_<table>`` of each other table it writes."""
    if not tables:
        return {}
    meta: Metadata = {
        "dagster/table_name": dg.MetadataValue.text(tables[0]),
        "dagster/column_schema": dg.MetadataValue.table_schema(table_schema(con, tables[0])),
    }
    for table in tables[1:]:
        meta[f"column_schema_{table}"] = dg.MetadataValue.table_schema(table_schema(con, table))
    return meta


def histogram_metadata(
    con: duckdb.DuckDBPyConnection, query: str, params: SqlParams, column: str, unit: str
) -> Metadata:
    """The distribution of ``column`` that ``sql/<query>.sql`` summarises (bins, n, min, mean,
    median, p90): ``<column>_histogram`` (Markdown), ``<column>_histogram_vega_lite`` and the
    summary figures; nothing when there are no values."""
    rows = fetch_dicts(con, query, params)
    if not rows:
        return {}
    row = rows[0]
    bins = histogram_bins(row["bins"], float(row["min"]))
    meta: Metadata = {
        f"{column}_histogram": dg.MetadataValue.md(histogram_markdown(bins, row, column, unit)),
        f"{column}_histogram_vega_lite": dg.MetadataValue.json(vega_lite_bars(bins, column, unit)),
    }
    for figure in ("mean", "median", "p90"):
        meta[f"{column}_{figure}"] = dg.MetadataValue.float(float(row[figure]))
    return meta


Bin = tuple[float, float, int]
"""(lower bound, upper bound, count) of one histogram bin."""


def histogram_bins(counts: Mapping[float, int], lowest: float) -> list[Bin]:
    """Bins from DuckDB's ``histogram`` map (upper bound -> count, each bin above the previous
    bound); the first bin starts at the lowest value."""
    bins: list[Bin] = []
    lower = lowest
    for upper, n in sorted(counts.items()):
        bins.append((min(lower, float(upper)), float(upper), int(n)))
        lower = float(upper)
    return bins


def histogram_markdown(bins: Sequence[Bin], row: Mapping[str, Any], column: str, unit: str) -> str:
    """A Markdown table of the bins with a bar each, under a line of summary figures."""
    peak = max((n for _, _, n in bins), default=0) or 1
    lines = [
        f"{row['n']} {unit}: mean {row['mean']:.3g}, median {row['median']:.3g}, "
        f"90th percentile {row['p90']:.3g}, from {row['min']:.3g} to {row['max']:.3g}",
        "",
        f"| {column} | {unit} | |",
        "|---:|---:|:---|",
    ]
    for lower, upper, n in bins:
        bar = "█" * round(BAR_WIDTH * n / peak) or ("▏" if n else "")
        lines.append(f"| {lower:.3g} – {upper:.3g} | {n} | {bar} |")
    return "\n".join(lines)


def vega_lite_bars(bins: Sequence[Bin], column: str, unit: str) -> dict[str, Any]:
    """A Vega-Lite bar chart of already binned counts."""
    return {
        "$schema": VEGA_LITE_SCHEMA,
        "description": f"Distribution of {column}",
        "data": {"values": [{"start": lo, "end": hi, "count": n} for lo, hi, n in bins]},
        "mark": "bar",
        "encoding": {
            "x": {
                "field": "start",
                "type": "quantitative",
                "bin": {"binned": True},
                "title": column,
            },
            "x2": {"field": "end"},
            "y": {"field": "count", "type": "quantitative", "title": unit},
        },
    }
