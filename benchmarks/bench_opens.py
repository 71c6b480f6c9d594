"""The CPU of opening the database: ``open_db`` with one small query, many times.

    python benchmarks/bench_opens.py /tmp/b10/db-10000-graph/bench.duckdb --opens 100 --rounds 3

Each round opens the file ``--opens`` times (one ``SELECT count(*) FROM crawls`` each) and
prints its CPU and wall time. Run it on a copy: the opens write the schema hash when it is
missing. For an A/B, run it alternately with ``PYTHONPATH`` on each version's checkout.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bench_meter import rusage_cpu

from linkpipe.lib.storage import open_db


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--opens", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for n in range(args.rounds):
        cpu, wall = rusage_cpu()[0], time.perf_counter()
        for _ in range(args.opens):
            with open_db(args.db) as con:
                con.execute("SELECT count(*) FROM crawls").fetchall()
        print(
            f"round {n + 1}: {args.opens} opens {rusage_cpu()[0] - cpu:.3f} CPU s, "
            f"wall {time.perf_counter() - wall:.3f} s"
        )


if __name__ == "__main__":
    main()
