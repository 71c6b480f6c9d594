"""The stages of the graph run in order without Dagster, for tests that need a crawl's tables
up to a given asset quickly (the Dagster runner is tested in linkpipe_tests/defs/); and
:func:`run_demo_crawls`, whole runs of the bundled demo site through the runner."""

from __future__ import annotations

from pathlib import Path

from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.stages.ann_index import materialize_ann_index
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.stages.indexable_pages import materialize_indexable_pages
from linkpipe.lib.stages.link_graph import materialize_link_graph
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.stages.page_embeddings import materialize_page_embeddings
from linkpipe.lib.stages.page_summaries import materialize_page_summaries
from linkpipe.lib.stages.site_models import materialize_site_models
from linkpipe.lib.static_site import serve_site

STEPS = ("ann_index", "link_opportunities")
DEMO_SITE = Path(__file__).resolve().parents[1] / "linkpipe" / "demo_site"


def run_demo_crawls(db: Path, crawl_ids: tuple[str, ...], model: str) -> None:
    """Serve the demo site and run the whole graph (``run_graph``, one worker) for each of
    ``crawl_ids`` in turn: the whole site every time (a page cap crawls different pages)."""
    from linkpipe.defs.runner import run_graph

    with serve_site(DEMO_SITE) as site:
        for crawl_id in crawl_ids:
            register_crawl(db, crawl_id, site.base_url + "/", "crawler", "", {"max_pages": 300})
            run_graph(db, crawl_id, model, workers=1)


def crawl_and_run(
    db: Path, crawl_id: str, start_url: str, model: str, max_pages: int, until: str
) -> None:
    """Register and crawl ``start_url`` (served by the caller), then run every stage in order
    up to ``until`` (``ann_index`` or ``link_opportunities``)."""
    assert until in STEPS, until
    register_crawl(db, crawl_id, start_url, "crawler", "", {"max_pages": max_pages})
    materialize_crawl_export(db, crawl_id, DEFAULT_SHARDS)
    materialize_indexable_pages(db, crawl_id)
    materialize_link_graph(db, crawl_id)
    for shard in range(DEFAULT_SHARDS):
        materialize_page_summaries(db, crawl_id, shard)
        materialize_page_embeddings(db, crawl_id, shard, model)
    materialize_ann_index(db, crawl_id, model)
    if until == "ann_index":
        return
    materialize_site_models(db, crawl_id)
    for shard in range(DEFAULT_SHARDS):
        materialize_candidate_pairs(db, crawl_id, shard, model)
    materialize_link_opportunities(db, crawl_id, model)
