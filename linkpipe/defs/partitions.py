"""Partitions: one dynamic partition per crawl; page-level assets are crawl x URL-hash shard."""

from __future__ import annotations

import warnings
from pathlib import Path

import dagster as dg

from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.mapped import drop_arrays
from linkpipe.lib.retention import prune_crawls
from linkpipe.lib.storage import open_db

CRAWLS = "crawls"  # name of the dynamic partitions definition: one partition per crawl id
crawl_partitions = dg.DynamicPartitionsDefinition(name=CRAWLS)
shard_partitions = dg.StaticPartitionsDefinition([str(i) for i in range(DEFAULT_SHARDS)])
page_partitions = dg.MultiPartitionsDefinition(
    {"crawl": crawl_partitions, "shard": shard_partitions}
)

# Page-level assets read a site-level asset of the same crawl, and vice versa.
with warnings.catch_warnings():  # beta in Dagster 1.13, the documented way for this mapping
    warnings.simplefilter("ignore")
    by_crawl = dg.MultiToSingleDimensionPartitionMapping(partition_dimension_name="crawl")

WRITER_POOL = "linkpipe_duckdb_writer"  # size 1: DuckDB allows one writing process


def crawl_and_shard(
    context: dg.AssetExecutionContext | dg.AssetCheckExecutionContext,
) -> tuple[str, int]:
    """(crawl id, shard) of a page-level asset's (or asset check's) partition."""
    key = context.partition_key
    if not isinstance(key, dg.MultiPartitionKey):
        key = page_partitions.get_partition_key_from_str(key)
    keys = key.keys_by_dimension
    return keys["crawl"], int(keys["shard"])


def prune_crawl_partitions(
    db_path: str | Path, keep_crawls: int, instance: dg.DagsterInstance
) -> list[str]:
    """Delete the crawls older than the ``keep_crawls`` most recent of their start URL (one
    transaction, :func:`~linkpipe.lib.retention.prune_crawls`), their shared arrays
    (``lib/mapped.py``) and their ``crawls`` partition keys in ``instance``; return their ids.
    A crawl newer than every finished one (a run still going) is never pruned."""
    with open_db(db_path) as con:
        pruned = prune_crawls(con, keep_crawls)
    if pruned:
        drop_arrays(db_path, set(pruned))
        for crawl_id in pruned:
            if instance.has_dynamic_partition(CRAWLS, crawl_id):
                instance.delete_dynamic_partition(CRAWLS, crawl_id)
    return pruned
