"""topic_clusters: clusters of the crawl's pages, bridge pages and cluster gaps."""

from __future__ import annotations

from pathlib import Path

from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.stages.link_graph import load_existing_links
from linkpipe.lib.stages.page_embeddings import load_crawl_vectors
from linkpipe.lib.storage import fetch_dicts, open_db, write_partition
from linkpipe.lib.vectors.clusters import cluster_pages


def materialize_topic_clusters(db_path: str | Path, crawl_id: str) -> StageResult:
    """Cluster the crawl's pages and flag bridges and loosely linked clusters."""
    urls, matrix = load_crawl_vectors(db_path, crawl_id)
    with open_db(db_path) as con:
        titles = {
            r["url"]: r["title"] or ""
            for r in fetch_dicts(con, "read/select_page_titles", [crawl_id])
        }
        content = load_existing_links(con, crawl_id).content
    pairs = {(s, t) for s, ts in content.items() for t in ts}
    clusters, summary = cluster_pages(urls, matrix, titles, pairs)
    with open_db(db_path) as con:
        written = write_partition(
            con, crawl_id, {"topic_clusters": clusters, "cluster_summary": summary}
        )
    return StageResult(written, preview(summary, ["cluster_id", "cluster_label", "size", "is_gap"]))
