"""Crawl throughput, peak memory and conditional-recrawl transfer, over loopback.

    python benchmarks/bench_crawl.py /usr/share/doc/openjdk-17-jre-headless/api --max-pages 12000

Serves SITE_ROOT on 127.0.0.1, runs the crawl_export stage into a fresh DuckDB file, then
``--recrawls`` times again (each a recrawl that sends If-None-Match / If-Modified-Since from the
one before), and prints pages/s, wall time, bytes received, the CPU of the crawler process and
of the stage's own process (storing what the crawler found), peak RSS of the crawler, how much
the database file grew with each crawl and its size after them all, and the ratio of bytes
transferred. Installs openjdk-17-doc when the default folder is missing.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.static_site import serve_site

OPENJDK = Path("/usr/share/doc/openjdk-17-jre-headless/api")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_root", nargs="?", default=str(OPENJDK))
    parser.add_argument("--max-pages", type=int, default=12_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--recrawls", type=int, default=1, help="unchanged recrawls (default 1)")
    args = parser.parse_args()
    root = Path(args.site_root)
    if root == OPENJDK and not root.exists():
        subprocess.run(["apt-get", "install", "-y", "openjdk-17-doc"], check=True)
    results = {}
    with tempfile.TemporaryDirectory() as tmp, serve_site(root) as site:
        db = Path(tmp) / "bench.duckdb"
        config = {
            "max_pages": args.max_pages,
            "concurrency": args.concurrency,
            "total_time_s": 3000,
        }
        names = ["first", "recrawl", *(f"recrawl-{n}" for n in range(2, args.recrawls + 1))]
        for crawl_id in names:
            register_crawl(db, crawl_id, site.base_url + "/", "crawler", "", config)
            start, children = time.perf_counter(), _children_cpu()
            size, own = _size(db), time.process_time()
            result = materialize_crawl_export(db, crawl_id, 4)
            wall, own = time.perf_counter() - start, time.process_time() - own
            stats = result.meta["crawl_stats"]
            results[crawl_id] = {
                "stage_cpu_s": round(own, 2),
                "db_growth_mib": round((_size(db) - size) / 2**20, 1),
                "pages": stats["pages"],
                "html_pages": stats.get("html_pages"),
                "wall_s": round(wall, 1),
                "crawl_s": stats.get("elapsed_s"),
                "pages_per_s": round(stats["pages"] / wall, 1),
                "bytes_received": stats.get("bytes_received"),
                "not_modified": stats.get("not_modified"),
                "crawler_cpu_s": round(_children_cpu() - children, 2),
                "peak_rss_mib_children": round(
                    resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1
                ),
            }
        results["db_mib_after_all"] = round(_size(db) / 2**20, 1)
    first, again = results["first"], results["recrawl"]
    results["recrawl_bytes_ratio"] = round(
        again["bytes_received"] / max(1, first["bytes_received"]), 4
    )
    print(json.dumps(results, indent=2))


def _size(db: Path) -> int:
    """Bytes of the database file and its write-ahead log."""
    wal = db.with_name(db.name + ".wal")
    return sum(p.stat().st_size for p in (db, wal) if p.exists())


def _children_cpu() -> float:
    """User and system CPU seconds of the finished child processes (the crawler's)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
