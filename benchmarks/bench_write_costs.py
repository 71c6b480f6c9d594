"""What a refresh spends writing: the CPU of each table's partition writes (rows copied from
the previous crawl by SQL, rows inserted from frames), of the commits, of the checkpoints when
a step lets the database file go, and of each table's rows copied into the published copy,
during a rerun of stored crawls (``bench_rerun.py``, whose arguments it takes):

    LINKPIPE_WORKERS=1 python benchmarks/bench_write_costs.py DB \
        --copy-to /tmp/rerun/bench.duckdb --fresh-caches graph-refresh-edited

(one worker: a shard worker's writes happen in its own process, where nothing is counted).

Prints the rerun's CPU, the total of each kind of write and the costliest (kind, table) with
their rows. The CPU is the process's (DuckDB's threads included), measured around each call:
a crawl that referred to the previous crawl's unchanged rows instead of copying them would
save the copies, their share of the commits and checkpoints, and their publication.
"""

from __future__ import annotations

import collections
import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import bench_rerun
from bench_candidate_phases import timed

from linkpipe.lib import retention
from linkpipe.lib.storage import host, partitions, queries

CPU: collections.Counter[str] = collections.Counter()  # "kind table" -> CPU seconds
ROWS: collections.Counter[str] = collections.Counter()


def _timed(module: Any, name: str, kind: str, table: Callable[[tuple[Any, ...]], str]) -> None:
    """Wrap ``module.name`` so that each call adds its CPU (and the rows it returns) under
    its kind and table (:func:`bench_candidate_phases.timed`)."""
    wrapped = timed(lambda args: f"{kind} {table(args)}", getattr(module, name), CPU, ROWS)
    setattr(module, name, wrapped)


def _counted_transaction(label: str) -> Callable[[Any], contextlib.AbstractContextManager[None]]:
    """``queries.transaction`` with the CPU of its commit counted under ``label`` (a partition
    write's commit, or the published copy's update's)."""

    @contextlib.contextmanager
    def counted(con: Any) -> Iterator[None]:
        with _real_transaction(con):
            yield
            started = time.process_time()
        CPU[f"commit {label}"] += time.process_time() - started

    return counted


_real_transaction = queries.transaction


def main() -> None:
    _timed(partitions, "_copy", "copied", lambda a: str(a[1]))
    _timed(partitions, "_replace", "inserted", lambda a: str(a[1]))
    _timed(partitions, "_add_content", "content", lambda a: str(a[1]))
    _timed(retention, "_publish_table", "published", lambda a: str(a[1]))
    _timed(host, "release", "checkpoint", lambda a: "")
    partitions.transaction = _counted_transaction("partitions")  # type: ignore[assignment]
    retention.transaction = _counted_transaction("published")  # type: ignore[assignment]
    started = time.process_time()
    bench_rerun.main()
    print(f"rerun CPU s: {time.process_time() - started:.1f}")
    kinds: collections.Counter[str] = collections.Counter()
    for label, cpu in CPU.items():
        kinds[label.split(" ")[0]] += cpu
    print("by kind:", {k: round(v, 2) for k, v in kinds.most_common()})
    for label, cpu in CPU.most_common(25):
        kind, table = label.split(" ")
        print(f"{cpu:7.2f} {kind:10s} {table:24s} {ROWS[label]:>10,}")


if __name__ == "__main__":
    sys.argv[0] = "bench_rerun.py"
    main()
