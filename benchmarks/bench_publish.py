"""The CPU of a refresh's published copy: ``publish_copy`` of a crawl on fresh copies of a
benchmark database and of its published copy, round after round.

    python benchmarks/bench_publish.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-refresh-edited --rounds 3 --work /tmp/publish

Each round copies the database and its published copy into ``--work`` (the originals are not
touched), then publishes ``--crawl`` twice, as a nightly run does after the crawl: the first
call is the measure (CPU of this process and DuckDB's threads), the second shows the steady
cost. For an A/B, run it alternately with ``PYTHONPATH`` on each version's checkout.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path

from linkpipe.lib.retention import publish_copy


def one_round(db: Path, work: Path, crawl: str) -> list[float]:
    """CPU seconds of two publications of ``crawl`` on fresh copies in ``work``."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    copy = work / db.name
    shutil.copyfile(db, copy)
    published = db.with_name(db.stem + ".published.duckdb")
    if published.is_file():
        shutil.copyfile(published, work / published.name)
    spent = []
    for _ in range(2):
        started = time.process_time()
        publish_copy(copy, refreshed=crawl)
        spent.append(round(time.process_time() - started, 3))
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, required=True, help="a folder for the copies")
    args = parser.parse_args()
    rounds = []
    for n in range(args.rounds):
        rounds.append(one_round(args.db, args.work, args.crawl))
        print(f"round {n + 1}: {rounds[-1][0]:.2f} CPU s, again {rounds[-1][1]:.2f}", flush=True)
    first = statistics.median(r[0] for r in rounds)
    print(json.dumps({"rounds": rounds, "median_first_cpu_s": first}, indent=1))


if __name__ == "__main__":
    main()
