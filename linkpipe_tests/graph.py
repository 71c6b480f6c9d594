"""The stages of the graph run in order without Dagster, for tests that need a crawl's tables
up to a given asset quickly (the Dagster runner is tested in linkpipe_tests/defs/); and
:func:`run_demo_crawls`, whole runs of the bundled demo site through the runner."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

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


def prefix_consistent(a: Sequence[Any], b: Sequence[Any], a_full: bool, b_full: bool) -> bool:
    """Whether two placement lists of one pair agree: equal when both are every placement,
    else the shorter is where the longer begins (a pair's placements are made lazily, as far
    as a crawl's anchor ledger needs them: see lib/links/anchor_ledger.py)."""
    if a_full and b_full:
        return list(a) == list(b)
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return list(long[: len(short)]) == list(short) and not (
        (a_full and len(a) < len(b)) or (b_full and len(b) < len(a))
    )


def placements_agree(a: Iterable[tuple], b: Iterable[tuple]) -> bool:
    """Whether two sets of ``kept_placements`` rows (``SELECT * EXCLUDE (crawl_id)``: the key
    first, ``anchors_complete`` last) hold the same keys with placements that agree
    (:func:`prefix_consistent`)."""

    def lists(rows: Iterable[tuple]) -> dict[str, tuple[list[Any], bool]]:
        out = {}
        for row in rows:
            best = [tuple(row[1:9])] if row[1] is not None else []
            out[row[0]] = (best + json.loads(row[9] or "[]"), row[10] is not False)
        return out

    left, right = lists(a), lists(b)
    return left.keys() == right.keys() and all(
        prefix_consistent(left[k][0], right[k][0], left[k][1], right[k][1]) for k in left
    )
