"""The CPU of opening the database: ``open_db`` with one small query, many times.

    python benchmarks/bench_opens.py /tmp/b10/db-10000-graph/bench.duckdb --opens 100 --rounds 3

Each round opens the file ``--opens`` times (one ``SELECT count(*) FROM crawls`` each) and
prints its CPU and wall time, alone and inside ``keep_open`` (the file kept attached between
the opens, as a small page step and scoring's first sources do), alternating. Run it on a
copy: the opens write the schema hash when it is missing. For an A/B, run it alternately with
``PYTHONPATH`` on each version's checkout.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from pathlib import Path

from bench_meter import rusage_cpu

from linkpipe.lib.storage import keep_open, open_db


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--opens", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for n in range(args.rounds):
        for kept in (False, True):
            cpu, wall = rusage_cpu()[0], time.perf_counter()
            with keep_open(args.db) if kept else contextlib.nullcontext():
                for _ in range(args.opens):
                    with open_db(args.db) as con:
                        con.execute("SELECT count(*) FROM crawls").fetchall()
            print(
                f"round {n + 1}{' kept' if kept else ''}: {args.opens} opens "
                f"{rusage_cpu()[0] - cpu:.3f} CPU s, wall {time.perf_counter() - wall:.3f} s"
            )


if __name__ == "__main__":
    main()
