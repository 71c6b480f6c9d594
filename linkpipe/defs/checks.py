"""Blocking asset checks: the rules of ``linkpipe.lib.checks`` run on each partition written.

A check runs after its asset in the same run (``linkpipe run`` included: every run of the CLI
executes the checks of the assets it materializes). When one fails, the assets downstream of
it are not materialized and the run fails with one line naming the check
(:func:`failed_check_message`).
"""

import warnings
from collections.abc import Callable, Iterable

import dagster as dg
from dagster_duckdb import DuckDBResource

from linkpipe.defs.assets import (
    ann_index,
    crawl_export,
    indexable_pages,
    link_opportunities,
    page_embeddings,
)
from linkpipe.defs.partitions import crawl_and_shard
from linkpipe.defs.resources import duckdb_connection
from linkpipe.lib import checks
from linkpipe.lib.checks import CheckOutcome

CheckFunction = Callable[..., dg.AssetCheckResult]


def _check(
    asset: dg.AssetsDefinition, description: str
) -> Callable[[CheckFunction], dg.AssetChecksDefinition]:
    """A blocking check of ``asset``, partitioned like it (one evaluation per partition)."""

    def decorate(fn: CheckFunction) -> dg.AssetChecksDefinition:
        with warnings.catch_warnings():  # partitioned checks are a preview in Dagster 1.13
            warnings.simplefilter("ignore", dg.PreviewWarning)
            check = dg.asset_check(
                asset=asset,
                description=description,
                blocking=True,
                partitions_def=asset.partitions_def,
            )
            return check(fn)

    return decorate


def _result(outcome: CheckOutcome) -> dg.AssetCheckResult:
    """The Dagster result of a check's outcome; a failure has ERROR severity (blocking)."""
    metadata = {
        key: dg.MetadataValue.json(value) if isinstance(value, list) else value
        for key, value in outcome.metadata.items()
    }
    return dg.AssetCheckResult(
        passed=outcome.passed,
        description=outcome.description,
        metadata=metadata,
        severity=dg.AssetCheckSeverity.ERROR,
    )


@_check(crawl_export, "Every URL has one crawl_pages row per crawl.")
def crawl_urls_unique(
    context: dg.AssetCheckExecutionContext, duckdb: DuckDBResource
) -> dg.AssetCheckResult:
    with duckdb_connection(duckdb) as con:
        return _result(checks.unique_urls(con, "crawl_pages", context.partition_key))


@_check(indexable_pages, "Every URL has one indexable_pages row per crawl.")
def indexable_urls_unique(
    context: dg.AssetCheckExecutionContext, duckdb: DuckDBResource
) -> dg.AssetCheckResult:
    with duckdb_connection(duckdb) as con:
        return _result(checks.unique_urls(con, "indexable_pages", context.partition_key))


@_check(
    page_embeddings,
    "One vector per page with a summary (as many vectors as embedded pages), made from it.",
)
def vectors_match_pages(
    context: dg.AssetCheckExecutionContext, duckdb: DuckDBResource
) -> dg.AssetCheckResult:
    crawl_id, shard = crawl_and_shard(context)
    with duckdb_connection(duckdb) as con:
        return _result(checks.vectors_match_pages(con, crawl_id, shard))


@_check(ann_index, "The stored FAISS index has one row per vector of the crawl.")
def faiss_rows_match_vectors(
    context: dg.AssetCheckExecutionContext, duckdb: DuckDBResource
) -> dg.AssetCheckResult:
    with duckdb_connection(duckdb) as con:
        return _result(checks.faiss_rows_match_vectors(con, context.partition_key))


@_check(
    link_opportunities,
    "No suggestion links a page to itself or a pair already linked in the source's content.",
)
def no_self_or_linked_pairs(
    context: dg.AssetCheckExecutionContext, duckdb: DuckDBResource
) -> dg.AssetCheckResult:
    with duckdb_connection(duckdb) as con:
        return _result(checks.no_self_or_linked_pairs(con, context.partition_key))


@_check(
    link_opportunities,
    "Every in-sentence anchor is the text at its offsets and lies inside its sentence.",
)
def anchors_inside_sentences(
    context: dg.AssetCheckExecutionContext, duckdb: DuckDBResource
) -> dg.AssetCheckResult:
    with duckdb_connection(duckdb) as con:
        return _result(checks.anchors_inside_sentences(con, context.partition_key))


ALL_CHECKS = [
    crawl_urls_unique,
    indexable_urls_unique,
    vectors_match_pages,
    faiss_rows_match_vectors,
    no_self_or_linked_pairs,
    anchors_inside_sentences,
]


def failed_check_message(events: Iterable[dg.DagsterEvent]) -> str | None:
    """One line naming the first failed blocking check of a run's events and saying why;
    None when no blocking check failed."""
    for event in events:
        if event.event_type != dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            continue
        evaluation = event.event_specific_data
        if (
            isinstance(evaluation, dg.AssetCheckEvaluation)
            and not evaluation.passed
            and evaluation.blocking
            and evaluation.severity == dg.AssetCheckSeverity.ERROR
        ):
            asset = evaluation.asset_key.to_user_string()
            reason = " ".join((evaluation.description or "no description").split())
            return f"check {evaluation.check_name} of {asset} failed: {reason}"
    return None
