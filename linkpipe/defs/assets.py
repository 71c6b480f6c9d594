"""The asset graph of the design, wired to the stage functions of linkpipe.lib.stages."""

from collections.abc import Callable

import dagster as dg
from dagster_duckdb import DuckDBResource

from linkpipe.defs.metadata import (
    Metadata,
    histogram_metadata,
    stage_metadata,
    table_metadata,
    thresholds_metadata,
)
from linkpipe.defs.partitions import (
    WRITER_POOL,
    by_crawl,
    crawl_and_shard,
    crawl_partitions,
    page_partitions,
    prune_crawl_partitions,
)
from linkpipe.defs.resources import LinkpipeSettings, duckdb_connection
from linkpipe.lib import stopping
from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.retention import publish_copy
from linkpipe.lib.run_status import finish_run_in
from linkpipe.lib.stages import StageResult
from linkpipe.lib.stages.ann_index import materialize_ann_index
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.crawl_export import materialize_crawl_export
from linkpipe.lib.stages.indexable_pages import materialize_indexable_pages
from linkpipe.lib.stages.link_graph import materialize_link_graph
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.stages.page_embeddings import materialize_page_embeddings
from linkpipe.lib.stages.page_summaries import materialize_page_summaries
from linkpipe.lib.stages.site_models import materialize_site_models
from linkpipe.lib.stages.topic_clusters import materialize_topic_clusters
from linkpipe.lib.storage import SqlParams

Histogram = tuple[str, SqlParams, str, str]
"""(query, parameters, column, unit) of a distribution to plot (see ``metadata``)."""

# Groups of the UI's asset graph, in the order the data flows.
CRAWL, CONTENT, VECTORS, SUGGESTIONS, PUBLISH = (
    "crawl",
    "content",
    "vectors",
    "suggestions",
    "publish",
)
PYTHON = frozenset({"python", "duckdb"})  # kinds: computed in Python, stored in DuckDB
# Everything after crawl_export follows it automatically when the daemon runs (nightly refresh).
EAGER = dg.AutomationCondition.eager()
Dep = dg.AssetsDefinition | dg.AssetDep
AssetDecorator = Callable[[Callable[..., dg.MaterializeResult[None]]], dg.AssetsDefinition]


def site_asset(
    *deps: Dep, group: str, kinds: frozenset[str] = PYTHON, eager: bool = True
) -> AssetDecorator:
    """A site-level asset: one partition per crawl, written by one process at a time."""
    return dg.asset(
        deps=deps,
        partitions_def=crawl_partitions,
        pool=WRITER_POOL,
        group_name=group,
        kinds=set(kinds),
        automation_condition=EAGER if eager else None,
    )


def page_asset(*deps: Dep, group: str, kinds: frozenset[str] = PYTHON) -> AssetDecorator:
    """A page-level asset: one partition per crawl and URL-hash shard.

    Shards run in parallel processes, so page-level assets are not in the writer pool (a pool
    slot is held for the whole step, compute included); they hold the database only to read
    their inputs and to write their partition, and ``storage.open_db`` waits for the lock."""
    return dg.asset(
        deps=deps,
        partitions_def=page_partitions,
        group_name=group,
        kinds=set(kinds),
        automation_condition=EAGER,
    )


def _output(
    result: StageResult,
    database: DuckDBResource,
    histogram: Histogram | None = None,
    extra: Metadata | None = None,
) -> dg.MaterializeResult[None]:
    """Dagster metadata of a stage result: rows per table, a Markdown preview, extras, the
    schema of each table written and, where given, a distribution read from the database."""
    meta = stage_metadata(result) | (extra or {})
    with duckdb_connection(database) as con:
        meta.update(table_metadata(con, list(result.rows)))
        if histogram is not None:
            meta.update(histogram_metadata(con, *histogram))
    return dg.MaterializeResult(metadata=meta)


@site_asset(group=CRAWL, kinds=frozenset({"python", "duckdb", "scrapy"}), eager=False)
def crawl_export(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """One row per fetched URL and one per link, from the built-in Scrapy crawler."""
    return _output(
        materialize_crawl_export(settings.db_path, context.partition_key, DEFAULT_SHARDS),
        duckdb,
    )


@site_asset(crawl_export, group=CRAWL)
def indexable_pages(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Which URLs take part; every excluded URL keeps its reason. The thin, listing and
    near-duplicate thresholds measured on the crawl are in the metadata and in
    ``indexability_thresholds``."""
    result = materialize_indexable_pages(settings.db_path, context.partition_key)
    return _output(result, duckdb, extra=thresholds_metadata(result.meta["thresholds"]))


@site_asset(crawl_export, indexable_pages, group=CRAWL)
def link_graph(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Existing links resolved, in/out counts, click depth, PageRank, orphans."""
    return _output(materialize_link_graph(settings.db_path, context.partition_key), duckdb)


@page_asset(dg.AssetDep(indexable_pages, partition_mapping=by_crawl), group=CONTENT)
def page_summaries(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Main content (trafilatura), sentences with offsets, compact summaries."""
    crawl_id, shard = crawl_and_shard(context)
    return _output(materialize_page_summaries(settings.db_path, crawl_id, shard), duckdb)


@page_asset(page_summaries, group=VECTORS, kinds=frozenset({"python", "duckdb", "pytorch"}))
def page_embeddings(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """One vector per page, cached by (summary hash, model id)."""
    crawl_id, shard = crawl_and_shard(context)
    return _output(
        materialize_page_embeddings(settings.db_path, crawl_id, shard, settings.model), duckdb
    )


@site_asset(
    dg.AssetDep(page_embeddings, partition_mapping=by_crawl),
    group=VECTORS,
    kinds=frozenset({"python", "duckdb", "faiss"}),
)
def ann_index(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """FAISS index over the crawl's embeddings, with measured recall."""
    return _output(
        materialize_ann_index(settings.db_path, context.partition_key, settings.model), duckdb
    )


@site_asset(
    dg.AssetDep(page_summaries, partition_mapping=by_crawl),
    link_graph,
    group=CONTENT,
    kinds=frozenset({"python", "duckdb", "scikitlearn"}),
)
def site_models(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Site-wide models every shard reads: TF-IDF statistics with a lexical index (its recall
    measured against exact search) and the name dictionary with link probabilities."""
    return _output(materialize_site_models(settings.db_path, context.partition_key), duckdb)


@page_asset(
    page_embeddings,
    dg.AssetDep(ann_index, partition_mapping=by_crawl),
    dg.AssetDep(site_models, partition_mapping=by_crawl),
    dg.AssetDep(link_graph, partition_mapping=by_crawl),
    group=SUGGESTIONS,
)
def candidate_pairs(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Top semantic neighbours plus lexical mentions, with signals and anchors."""
    crawl_id, shard = crawl_and_shard(context)
    result = materialize_candidate_pairs(settings.db_path, crawl_id, shard, settings.model)
    similarity = ("read/select_similarity_histogram", [crawl_id, shard], "semantic_sim", "pairs")
    return _output(result, duckdb, similarity)


@site_asset(dg.AssetDep(candidate_pairs, partition_mapping=by_crawl), link_graph, group=SUGGESTIONS)
def link_opportunities(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Filtered, scored and capped suggestions with anchor, sentence, offsets and reason."""
    crawl_id = context.partition_key
    result = materialize_link_opportunities(settings.db_path, crawl_id, settings.model)
    scores = ("read/select_score_histogram", [crawl_id], "score", "suggestions")
    return _output(result, duckdb, scores)


@site_asset(ann_index, link_graph, group=VECTORS, kinds=frozenset({"python", "duckdb", "faiss"}))
def topic_clusters(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings, duckdb: DuckDBResource
) -> dg.MaterializeResult[None]:
    """Topic clusters, bridge pages and loosely linked clusters (gaps)."""
    return _output(materialize_topic_clusters(settings.db_path, context.partition_key), duckdb)


@site_asset(link_opportunities, topic_clusters, group=PUBLISH, kinds=frozenset({"duckdb"}))
def published_snapshot(
    context: dg.AssetExecutionContext, settings: LinkpipeSettings
) -> dg.MaterializeResult[None]:
    """A read-only copy of the database for analysts, replaced atomically after each run.

    Its upstream graph has materialized, so the crawl is marked complete first: from now on it
    is the latest crawl of every view, in the database and in the copy. Then the crawls beyond
    the ``keep_crawls`` most recent finished ones (this one among them) are pruned, whether the
    run came from the CLI, the nightly schedule or the UI, and the kept ones published. A run
    asked to stop is never published."""
    stopping.raise_if_requested()
    finish_run_in(settings.db_path, context.partition_key, "complete")
    pruned = prune_crawl_partitions(settings.db_path, settings.keep_crawls, context.instance)
    if pruned:
        context.log.info(f"pruned {len(pruned)} old crawl(s): {', '.join(pruned)}")
    path = publish_copy(settings.db_path, settings.keep_crawls, context.partition_key)
    return dg.MaterializeResult(
        metadata={"path": str(path), "bytes": path.stat().st_size, "pruned": ", ".join(pruned)}
    )


SITE_ASSETS = [crawl_export, indexable_pages, link_graph]
PAGE_ASSETS_1 = [page_summaries, page_embeddings]
INDEX_ASSETS = [ann_index, site_models]
PAGE_ASSETS_2 = [candidate_pairs]
FINAL_ASSETS = [link_opportunities, topic_clusters, published_snapshot]
ALL_ASSETS = SITE_ASSETS + PAGE_ASSETS_1 + INDEX_ASSETS + PAGE_ASSETS_2 + FINAL_ASSETS
