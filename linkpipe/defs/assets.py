"""The asset graph of the design, wired to the stage functions of linkpipe.lib.stages."""

import dagster as dg

from linkpipe.defs.partitions import (
    WRITER_POOL,
    by_crawl,
    crawl_and_shard,
    crawl_partitions,
    page_partitions,
)
from linkpipe.defs.resources import LinkpipeSettings
from linkpipe.lib.sharding import DEFAULT_SHARDS
from linkpipe.lib.stages import StageResult
from linkpipe.lib.stages.ann_index import materialize_ann_index
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.crawl_export import materialize_crawl_export
from linkpipe.lib.stages.indexable_pages import materialize_indexable_pages
from linkpipe.lib.stages.link_graph import materialize_link_graph
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.stages.page_embeddings import materialize_page_embeddings
from linkpipe.lib.stages.page_summaries import materialize_page_summaries
from linkpipe.lib.stages.topic_clusters import materialize_topic_clusters
from linkpipe.lib.storage import publish_copy


def _output(result: StageResult) -> dg.MaterializeResult:
    meta: dict[str, dg.MetadataValue] = {
        f"rows_{table}": dg.MetadataValue.int(n) for table, n in result.rows.items()
    }
    meta["dagster/row_count"] = dg.MetadataValue.int(sum(result.rows.values()))
    if result.preview:
        cols = list(result.preview[0])
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(str(r[c])[:80] for c in cols) + " |" for r in result.preview]
        meta["preview"] = dg.MetadataValue.md("\n".join(lines))
    for key, value in result.meta.items():
        meta[key] = dg.MetadataValue.json(value) if isinstance(value, dict | list) else value
    return dg.MaterializeResult(metadata=meta)


SITE = {"partitions_def": crawl_partitions, "pool": WRITER_POOL, "group_name": "linkpipe"}
PAGE = {"partitions_def": page_partitions, "pool": WRITER_POOL, "group_name": "linkpipe"}
# Everything after crawl_export follows it automatically when the daemon runs (nightly refresh).
EAGER = {"automation_condition": dg.AutomationCondition.eager()}


@dg.asset(**SITE)
def crawl_export(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """One row per fetched URL and one per link, from the built-in Scrapy crawler."""
    return _output(
        materialize_crawl_export(settings.db_path, context.partition_key, DEFAULT_SHARDS)
    )


@dg.asset(deps=[crawl_export], **SITE, **EAGER)
def indexable_pages(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """Which URLs take part; every excluded URL keeps its reason."""
    return _output(materialize_indexable_pages(settings.db_path, context.partition_key))


@dg.asset(deps=[crawl_export, indexable_pages], **SITE, **EAGER)
def link_graph(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """Existing links resolved, in/out counts, click depth, PageRank, orphans."""
    return _output(materialize_link_graph(settings.db_path, context.partition_key))


@dg.asset(deps=[dg.AssetDep(indexable_pages, partition_mapping=by_crawl)], **PAGE, **EAGER)
def page_summaries(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """Main content (trafilatura), sentences with offsets, compact summaries."""
    crawl_id, shard = crawl_and_shard(context)
    return _output(materialize_page_summaries(settings.db_path, crawl_id, shard))


@dg.asset(deps=[page_summaries], **PAGE, **EAGER)
def page_embeddings(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """One vector per page, cached by (summary hash, model id)."""
    crawl_id, shard = crawl_and_shard(context)
    return _output(materialize_page_embeddings(settings.db_path, crawl_id, shard, settings.model))


@dg.asset(deps=[dg.AssetDep(page_embeddings, partition_mapping=by_crawl)], **SITE, **EAGER)
def ann_index(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """FAISS index over the crawl's embeddings, with measured recall."""
    return _output(materialize_ann_index(settings.db_path, context.partition_key, settings.model))


@dg.asset(
    deps=[
        page_embeddings,
        dg.AssetDep(ann_index, partition_mapping=by_crawl),
        dg.AssetDep(link_graph, partition_mapping=by_crawl),
    ],
    **PAGE,
    **EAGER,
)
def candidate_pairs(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """Top semantic neighbours plus lexical mentions, with signals and anchors."""
    crawl_id, shard = crawl_and_shard(context)
    return _output(materialize_candidate_pairs(settings.db_path, crawl_id, shard, settings.model))


@dg.asset(
    deps=[dg.AssetDep(candidate_pairs, partition_mapping=by_crawl), link_graph], **SITE, **EAGER
)
def link_opportunities(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """Filtered, scored and capped suggestions with anchor, sentence, offsets and reason."""
    return _output(materialize_link_opportunities(settings.db_path, context.partition_key))


@dg.asset(deps=[ann_index, link_graph], **SITE, **EAGER)
def topic_clusters(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """Topic clusters, bridge pages and loosely linked clusters (gaps)."""
    return _output(materialize_topic_clusters(settings.db_path, context.partition_key))


@dg.asset(deps=[link_opportunities, topic_clusters], **SITE, **EAGER)
def published_snapshot(context: dg.AssetExecutionContext, settings: LinkpipeSettings):
    """A read-only copy of the database for analysts, replaced atomically after each run."""
    path = publish_copy(settings.db_path)
    return dg.MaterializeResult(metadata={"path": str(path), "bytes": path.stat().st_size})


SITE_ASSETS = [crawl_export, indexable_pages, link_graph]
PAGE_ASSETS_1 = [page_summaries, page_embeddings]
INDEX_ASSETS = [ann_index]
PAGE_ASSETS_2 = [candidate_pairs]
FINAL_ASSETS = [link_opportunities, topic_clusters, published_snapshot]
ALL_ASSETS = SITE_ASSETS + PAGE_ASSETS_1 + INDEX_ASSETS + PAGE_ASSETS_2 + FINAL_ASSETS
