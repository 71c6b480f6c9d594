"""topic_clusters: clusters of the crawl's pages, bridge pages and cluster gaps."""

from __future__ import annotations

from pathlib import Path

from linkpipe.lib.stages.common import StageResult, preview
from linkpipe.lib.stages.link_graph import load_existing_links
from linkpipe.lib.stages.page_embeddings import load_crawl_vectors
from linkpipe.lib.storage import fetch_frame, open_db, write_partition
from linkpipe.lib.vectors.cluster_labels import PageHeadings
from linkpipe.lib.vectors.clusters import cluster_pages


def materialize_topic_clusters(db_path: str | Path, crawl_id: str) -> StageResult:
    """Cluster the crawl's pages and flag bridges and loosely linked clusters."""
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
            con, crawl_id, {"topic_clusters": clusters, "cluster_summary": summary}
        )
    return StageResult(written, preview(summary, ["cluster_id", "cluster_label", "size", "is_gap"]))
