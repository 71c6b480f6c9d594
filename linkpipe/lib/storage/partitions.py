"""Writing a partition: every write is a single transaction that deletes the partition's rows
and inserts the new ones (computed rows, and rows copied unchanged from another crawl by SQL),
then commits. A failure rolls back and leaves the previous rows intact; a re-run gives the
same rows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from itertools import groupby
from typing import TypeAlias

import duckdb
import polars as pl
import pyarrow as pa

from linkpipe.lib.storage.queries import (
    ArrowStream,
    SqlParams,
    execute,
    load_sql,
    table_columns,
    transaction,
)

CRAWL_TABLES = frozenset(
    {
        "crawl_pages",
        "crawl_links",
        "crawl_parses",
        "indexable_pages",
        "indexability_thresholds",
        "link_edges",
        "page_link_metrics",
        "ann_indexes",
        "link_opportunities",
        "opportunity_inputs",
        "kept_placements",
        "graph_inputs",
        "cluster_inputs",
        "indexable_inputs",
        "cannibalisation_pairs",
        "scoring_weights",
        "topic_clusters",
        "cluster_summary",
        "site_models",
        "site_model_inputs",
        "site_terms",
        "site_page_terms",
        "site_names",
        "crawl_runs",
        "whatif_pages",
    }
)

SHARD_TABLES = frozenset(
    {
        "page_summaries",
        "page_embeddings",
        "candidate_pairs",
        "candidate_inputs",
        "candidate_sources",
    }
)

# tables keyed by content and shared by crawls (not partitions): a write adds rows with the
# statement named here ({table}: the table), in the partition's transaction; rows go only when
# no crawl has them
CONTENT_TABLES = {
    "page_html": "write/insert_page_html",
    "page_parses": "write/upsert_page_parses",
    "text_sentences": "write/insert_by_text_key",
    "text_links": "write/insert_by_text_key",
}

_BATCH_VIEW = "_linkpipe_batch"
_CONTENT_VIEW = "_linkpipe_content"

_COPY_VIEW = "_linkpipe_copy_keys"

Row: TypeAlias = Mapping[str, object]
"""One row to write, keyed by column name."""

PartitionRows: TypeAlias = ArrowStream | Sequence[Row] | Iterable[ArrowStream]
"""What :func:`write_partition` writes into one table: a frame, rows, or a stream of frames."""


@dataclass(frozen=True)
class CopiedRows:
    """Rows of another crawl's partition (the same shard for shard tables), chosen by the value
    of ``key_column``, that a partition write copies unchanged but for ``crawl_id``."""

    from_crawl_id: str
    keys: Sequence[str]
    key_column: str = "url"


def rows_to_frame(
    rows: Sequence[Row], columns: Sequence[str], types: Mapping[str, pa.DataType] | None = None
) -> pl.DataFrame:
    """A frame holding ``columns`` of ``rows`` (missing keys become NULL, types inferred).
    With ``types`` (the table's Arrow types), the columns of lists and bytes are converted by
    Arrow at their type: polars infers a list column value by value, ~4x the CPU (a shard's
    ``candidate_sources`` rows: 0.13 -> 0.03 CPU-s); values Arrow refuses are left to it."""
    data: dict[str, object] = {}
    for c in columns:
        values = [row.get(c) for row in rows]
        kind = types.get(c) if types else None
        data[c] = _arrow_series(c, values, kind) if kind is not None else values
    return pl.DataFrame(data, strict=False)


def _arrow_series(name: str, values: list[object], kind: pa.DataType) -> pl.Series | list[object]:
    """``values`` as a series of type ``kind`` when it holds lists or bytes (else, or when
    Arrow refuses a value, the values as they are)."""
    if not (pa.types.is_list(kind) or pa.types.is_binary(kind) or pa.types.is_large_list(kind)):
        return values
    try:
        return pl.Series(name, pa.array(values, type=kind))
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return values


def write_partition(
    con: duckdb.DuckDBPyConnection,
    crawl_id: str,
    tables: Mapping[str, PartitionRows],
    shard: int | None = None,
    copied: Mapping[str, CopiedRows | Sequence[CopiedRows]] | None = None,
    then: Sequence[tuple[str, SqlParams]] = (),
) -> dict[str, int]:
    """Replace one partition of each given table in ONE transaction; return rows per table.

    Each value of ``tables`` is a frame (polars, or any Arrow table), a sequence of row
    mappings, or an iterable of frames (streamed in batches, for data that does not fit in
    memory at once). Missing columns are NULL; ``crawl_id`` (and ``shard``) are set here, never
    by the caller. ``copied`` adds, per table, rows of another crawl copied by SQL (INSERT ...
    SELECT) without passing through Python (one or more choices of rows per table); a table
    named only there is replaced too. The caller keeps the copied keys and the computed rows
    apart. A table of :data:`CONTENT_TABLES` in ``tables`` gets its rows added (tables are
    written in the order given). ``then``: statements (SQL file name, parameters) run after
    the rows are in, in the same transaction.
    """
    copied = copied or {}
    written: dict[str, int] = {}
    try:
        with transaction(con):
            for table in [*tables, *(t for t in copied if t not in tables)]:
                if table in CONTENT_TABLES:
                    written[table] = _add_content(con, table, tables[table])
                    continue
                written[table] = _replace(con, table, crawl_id, tables.get(table, ()), shard)
                choices = copied.get(table, ())
                for copy in [choices] if isinstance(choices, CopiedRows) else choices:
                    written[table] += _copy(con, table, crawl_id, copy, shard)
            for name, params in then:
                execute(con, name, params)
    finally:
        for view in (_BATCH_VIEW, _COPY_VIEW, _CONTENT_VIEW):
            with suppress(duckdb.Error):
                con.unregister(view)
    return written


def _partition_keys(table: str, crawl_id: str, shard: int | None) -> list[object]:
    """The partition key values of ``table``: [crawl_id] or [crawl_id, shard]."""
    if table in SHARD_TABLES:
        if shard is None:
            raise ValueError(f"{table} is partitioned by crawl and shard; give a shard")
        return [crawl_id, shard]
    if table in CRAWL_TABLES:
        return [crawl_id]
    raise ValueError(f"unknown partitioned table: {table}")


def _replace(
    con: duckdb.DuckDBPyConnection,
    table: str,
    crawl_id: str,
    rows: PartitionRows,
    shard: int | None,
) -> int:
    """Delete the table's partition, then insert every batch of ``rows``; rows inserted."""
    keys = _partition_keys(table, crawl_id, shard)
    delete = "write/delete_shard_partition" if len(keys) == 2 else "write/delete_crawl_partition"
    columns = table_columns(con, table)
    con.execute(load_sql(delete).format(table=table), keys)
    key_columns = ["crawl_id", "shard"][: len(keys)]
    as_rows = isinstance(rows, Sequence) and not isinstance(rows, pl.DataFrame) and rows
    types = _arrow_types(con, table) if as_rows else None
    batches = (b for b in _as_frames(rows, columns, types) if b.height)
    written = 0
    for cols, run in groupby(batches, lambda b: _given(b, columns, key_columns)):
        written += _insert_run(con, table, list(cols), key_columns, keys, run)
    return written


def _given(batch: pl.DataFrame, columns: Sequence[str], keys: Sequence[str]) -> tuple[str, ...]:
    """The table's columns the batch gives (in the table's order), partition keys left out."""
    return tuple(c for c in columns if c in batch.columns and c not in keys)


def _insert_run(
    con: duckdb.DuckDBPyConnection,
    table: str,
    cols: list[str],
    key_columns: list[str],
    keys: list[object],
    batches: Iterable[pl.DataFrame],
) -> int:
    """Insert consecutive batches giving the same columns with one statement, reading them as
    one Arrow stream cast to the table's types (a batch whose values are all NULL has no type
    of its own). In one statement DuckDB writes full row groups to the file as it goes; a
    statement per batch kept every row of the transaction in memory until the commit (a 100k
    site's shard of a million candidate rows: 1.8 GB against 0.9 at its peak)."""
    names = ", ".join(f'"{c}"' for c in cols)
    stream = _TableStream(con, table, cols, batches)
    con.register(_BATCH_VIEW, stream.reader())
    select_list = ", ".join([names, *("?" for _ in key_columns)])
    insert_list = ", ".join([names, *(f'"{c}"' for c in key_columns)])
    con.execute(
        f"INSERT INTO {table} ({insert_list}) SELECT {select_list} FROM {_BATCH_VIEW}", keys
    )
    con.unregister(_BATCH_VIEW)
    return stream.count


def _add_content(con: duckdb.DuckDBPyConnection, table: str, rows: PartitionRows) -> int:
    """Add rows to a table of :data:`CONTENT_TABLES` with its statement (which reads them as
    the view ``_linkpipe_content``); rows given."""
    columns = table_columns(con, table)
    stream = _TableStream(con, table, columns, (b for b in _as_frames(rows, columns) if b.height))
    con.register(_CONTENT_VIEW, stream.reader())
    con.execute(load_sql(CONTENT_TABLES[table]).format(table=table))
    con.unregister(_CONTENT_VIEW)
    return stream.count


class _TableStream:
    """Frames giving ``cols`` of ``table`` as one Arrow stream of the table's types (a batch
    whose values are all NULL has no type of its own); ``count``: the rows read so far."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        table: str,
        cols: list[str],
        batches: Iterable[pl.DataFrame],
    ) -> None:
        names = ", ".join(f'"{c}"' for c in cols)
        self.schema = con.sql(f"SELECT {names} FROM {table} LIMIT 0").to_arrow_table().schema
        self.cols, self.batches, self.count = cols, batches, 0

    def reader(self) -> pa.RecordBatchReader:
        return pa.RecordBatchReader.from_batches(self.schema, self._batches())

    def _batches(self) -> Iterator[pa.RecordBatch]:
        for batch in self.batches:
            self.count += batch.height
            yield from batch.select(self.cols).to_arrow().cast(self.schema).to_batches()


def _copy(
    con: duckdb.DuckDBPyConnection,
    table: str,
    crawl_id: str,
    copy: CopiedRows,
    shard: int | None,
) -> int:
    """Insert the chosen rows of ``copy.from_crawl_id`` into the partition; rows copied."""
    keys = _partition_keys(table, crawl_id, shard)
    if copy.from_crawl_id == crawl_id:
        raise ValueError(f"{table}: rows cannot be copied from the partition being written")
    if copy.key_column not in table_columns(con, table):
        raise ValueError(f"{table} has no column {copy.key_column!r} to choose copied rows by")
    if not copy.keys:
        return 0
    name = "write/insert_copied_shard_rows" if len(keys) == 2 else "write/insert_copied_crawl_rows"
    sql = load_sql(name).format(table=table, key=f'"{copy.key_column}"')
    con.register(_COPY_VIEW, pl.DataFrame({"key": list(copy.keys)}, schema={"key": pl.String}))
    result = con.execute(sql, [crawl_id, copy.from_crawl_id, *keys[1:]]).fetchone()
    con.unregister(_COPY_VIEW)
    return int(result[0]) if result else 0


def _arrow_types(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, pa.DataType]:
    """The Arrow type of each column of ``table``."""
    schema = con.sql(f"SELECT * FROM {table} LIMIT 0").to_arrow_table().schema
    return {f.name: f.type for f in schema}


def _as_frames(
    rows: PartitionRows, columns: Sequence[str], types: Mapping[str, pa.DataType] | None = None
) -> Iterator[pl.DataFrame]:
    """The batches of ``rows`` as polars frames (row mappings become one frame, ``types``
    those of :func:`rows_to_frame`)."""
    if isinstance(rows, pl.DataFrame):
        yield rows
    elif isinstance(rows, ArrowStream):
        yield pl.DataFrame(rows)
    elif isinstance(rows, Sequence):
        if rows:
            yield rows_to_frame(rows, columns, types)
    else:
        for batch in rows:
            yield batch if isinstance(batch, pl.DataFrame) else pl.DataFrame(batch)
