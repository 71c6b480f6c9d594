"""Partitions: one dynamic partition per crawl; page-level assets are crawl x URL-hash shard."""

from __future__ import annotations

import warnings

import dagster as dg

from linkpipe.lib.hashing import DEFAULT_SHARDS

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
