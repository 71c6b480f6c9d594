"""topic_clusters: clusters of the crawl's pages, bridge pages and cluster gaps; a crawl whose
vectors, headings and links are an earlier crawl's copies its rows (``cluster_inputs``)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from linkpipe.lib.stages.common import (
    StageResult,
    copy_crawl_of_same_inputs,
    inputs_digest,
    preview,
)
from linkpipe.lib.stages.link_graph import load_existing_links
from linkpipe.lib.stages.page_embeddings import load_crawl_vectors
from linkpipe.lib.storage import fetch_frame, open_db, write_partition
from linkpipe.lib.vectors.cluster_labels import PageHeadings
from linkpipe.lib.vectors.clusters import cluster_pages

CLUSTER_TABLES = ("topic_clusters", "cluster_summary")


def cluster_digest(con: duckdb.DuckDBPyConnection, crawl_id: str) -> str:
    """Digest of everything the crawl's clusters are computed from: page vectors, titles and
    headings, link edges (sql/read/select_cluster_inputs.sql) and the code."""
    return inputs_digest(con, crawl_id, "read/select_cluster_inputs")


def materialize_topic_clusters(
    db_path: str | Path, crawl_id: str, reuse: bool = True
) -> StageResult:
    """Cluster the crawl's pages and flag bridges and loosely linked clusters. With ``reuse``,
    a crawl whose inputs are an earlier crawl's (:func:`cluster_digest`) copies its rows."""
    with open_db(db_path) as con:
        digest = cluster_digest(con, crawl_id)
        if reuse:
            copied = copy_crawl_of_same_inputs(
                con, crawl_id, "cluster_inputs", digest, CLUSTER_TABLES
            )
            if copied is not None:
                return copied
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    with open_db(db_path) as con:
        texts = fetch_frame(con, "read/select_cluster_texts", [crawl_id, crawl_id])
        content = load_existing_links(con, crawl_id).content
    pairs = {(s, t) for s, ts in content.items() for t in ts}
    headings: dict[str, str | PageHeadings] = {
        url: PageHeadings(title, h1, tuple(others))
        for url, title, h1, others in texts.select("url", "title", "h1", "headings").iter_rows()
    }
    clusters, summary = cluster_pages(urls, matrix, headings, pairs)
    with open_db(db_path) as con:
        written = write_partition(
            con,
            crawl_id,
            {
                "topic_clusters": clusters,
                "cluster_summary": summary,
                "cluster_inputs": [{"digest": digest}],
            },
        )
    shown = preview(summary, ["cluster_id", "cluster_label", "size", "is_gap"])
    return StageResult(written, shown, {"copied_from": ""})
