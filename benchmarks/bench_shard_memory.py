"""What a candidate shard worker holds before it computes: the resident memory each part it
loads adds (site context, ANN index, the first chunk of source texts, the previous crawl's
shard, every page's fact digest), in one process, as the step loads them.

    python benchmarks/bench_shard_memory.py /tmp/w100k/db-100000-graph/bench.duckdb \
        --crawl graph-refresh-edited --shard 0

The crawl must have been run up to ``site_models``; a refresh's previous crawl must have its
``candidate_pairs`` (a ``bench_pipeline.py`` database has every step). The site context's
arrays are mapped from the files the machine's workers share (built by the first process that
asks: the first run after a change of code or crawl also counts their build in its peak).
Resident memory is read from ``/proc/self/statm`` after a garbage collection; the peak is the
process's ``ru_maxrss``.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linkpipe.lib.stages.ann_index import load_ann_index
from linkpipe.lib.stages.candidate_context import site_context
from linkpipe.lib.stages.candidate_pairs import DEFAULT_K, shard_inputs
from linkpipe.lib.stages.candidate_previous import page_digests, previous_shard
from linkpipe.lib.stages.source_texts import shard_texts
from linkpipe.lib.storage import open_db
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL


def resident_mib() -> float:
    """This process's resident memory now, after a garbage collection."""
    gc.collect()
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def peak_mib() -> float:
    """This process's peak resident memory so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_parts(db: Path, crawl: str, shard: int, model: str) -> list[dict[str, Any]]:
    """Each part a shard worker loads, in the step's order: the memory it added, the peak
    after it, and how many items it holds."""
    held: list[Any] = []  # every part stays loaded, as in the step
    figures: list[dict[str, Any]] = []
    _, site_digest, _ = shard_inputs(db, crawl, shard, model, DEFAULT_K)

    def previous() -> Any:
        with open_db(db) as con:
            return previous_shard(con, crawl, shard)

    def pages() -> Any:
        with open_db(db) as con:
            return page_digests(con, crawl)

    parts: list[tuple[str, Callable[[], Any], Callable[[Any], int]]] = [
        ("site context", lambda: site_context(db, crawl, site_digest), lambda s: len(s.pages)),
        ("ANN index", lambda: load_ann_index(db, crawl), lambda a: len(a.urls)),
        ("source texts (first chunk)", lambda: _first_chunk(db, crawl, shard), len),
        ("previous shard", previous, lambda p: len(p.digests)),
        ("page fact digests", pages, len),
    ]
    before = resident_mib()
    figures.append({"part": "imports", "mib": round(before), "peak_mib": round(peak_mib())})
    for name, load, count in parts:
        held.append(load())
        now = resident_mib()
        row = {"part": name, "mib": round(now - before), "peak_mib": round(peak_mib())}
        figures.append(row | {"items": count(held[-1])})
        before = now
    return figures


def _first_chunk(db: Path, crawl: str, shard: int) -> dict[str, Any]:
    """The first chunk of the shard's source texts (the step holds one at a time)."""
    return next(iter(shard_texts(db, crawl, shard).chunks()), {})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a database holding the crawl")
    parser.add_argument("--crawl", required=True, help="the crawl id")
    parser.add_argument("--shard", type=int, default=0)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    figures = measure_parts(args.db, args.crawl, args.shard, args.model)
    print("| part | resident MiB added | peak MiB after | items |")
    print("|---|---|---|---|")
    for f in figures:
        print(f"| {f['part']} | {f['mib']:,} | {f['peak_mib']:,} | {f.get('items', '')} |")
    print(f"held after loading: {sum(f['mib'] for f in figures[1:]):,} MiB")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
