"""Topic-cluster labels of a stored crawl: the pages' titles and headings grouped by the
crawl's stored clusters, labelled by ``cluster_labels`` as ``topic_clusters`` does. Prints the
CPU of the first call of the process (a run labels once) and the median of the next ones,
with a digest of the labels (equal across codes when the labels are).

    python benchmarks/bench_cluster_labels.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-refresh-edited --calls 5

Read-only. For an A/B, run it with each code on ``PYTHONPATH``, alternating.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
from pathlib import Path

import duckdb
from bench_meter import rusage_cpu

from linkpipe.lib.storage.queries import load_sql
from linkpipe.lib.vectors.cluster_labels import PageHeadings, cluster_labels


def clusters_of(db: Path, crawl: str) -> dict[int, list[PageHeadings]]:
    """The crawl's pages' headings by their stored cluster."""
    con = duckdb.connect(str(db), read_only=True)
    texts = con.sql(load_sql("read/select_cluster_texts"), params=[crawl, crawl]).pl()
    query = "SELECT url, cluster_id FROM topic_clusters WHERE crawl_id = ?"
    cluster = dict(con.execute(query, [crawl]).fetchall())
    groups: dict[int, list[PageHeadings]] = {}
    for url, title, h1, others in texts.select("url", "title", "h1", "headings").iter_rows():
        if url in cluster:
            page = PageHeadings(title or "", h1 or "", tuple(others or ()))
            groups.setdefault(cluster[url], []).append(page)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    groups = clusters_of(args.db, args.crawl)
    times, labels = [], {}
    for _ in range(args.calls):
        start = rusage_cpu()[0]
        labels = cluster_labels(groups)
        times.append(rusage_cpu()[0] - start)
    digest = hashlib.sha1(repr(sorted(labels.items())).encode()).hexdigest()[:12]
    later = statistics.median(times[1:]) if len(times) > 1 else float("nan")
    pages = sum(len(g) for g in groups.values())
    print(f"{len(groups)} clusters, {pages} pages: first call {times[0]:.3f} CPU-s, ", end="")
    print(f"later calls' median {later:.3f}; labels {digest}")


if __name__ == "__main__":
    main()
