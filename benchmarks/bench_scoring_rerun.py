"""What a refresh's ``link_opportunities`` costs when it places new pairs, and when it runs
again with every kept pair's anchor key known (a link or a page fact changed, no text).

    python benchmarks/bench_scoring_rerun.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-refresh-edited --json /tmp/rerun.json

On a copy of the database (the original is not touched): the crawl's own ``kept_placements``
are deleted (its pairs take their placements from the earlier crawls' by anchor key, as when
it was first scored), the step runs, then runs again on the placements it stored. Printed
for each run: the step's CPU (this process; the placing workers' when the step starts them),
the pairs placed, taken by key and placed fully after the site's ledger looked past their
first placements. ``--from-scratch``: every crawl's placements and the stored parses deleted
first, so the first run places and parses as a site's first crawl does (with
``LINKPIPE_WORKERS=1``, in this process).
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import duckdb
from bench_lexical_reuse import report
from bench_meter import rusage_cpu

from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

FIGURES = ("placements_made", "placements_reused", "placements_completed", "parser_cpu_s")


def _run(db: Path, crawl: str, model: str) -> dict[str, Any]:
    """One run of the step: its CPU and what it placed."""
    before = sum(rusage_cpu())  # this process and the children it reaped
    meta = materialize_link_opportunities(db, crawl, model).meta
    return {"cpu_s": round(sum(rusage_cpu()) - before, 2)} | {k: meta.get(k) for k in FIGURES}


def measure(db: Path, crawl: str, model: str, scratch: bool = False) -> dict[str, Any]:
    """The two runs on a copy of ``db`` (see the module); ``scratch``: every crawl's
    ``kept_placements`` and the stored parses deleted first (a site's first scoring)."""
    with TemporaryDirectory() as tmp:
        copy = Path(tmp) / db.name
        shutil.copyfile(db, copy)
        con = duckdb.connect(str(copy))
        try:
            if scratch:
                con.execute("DELETE FROM kept_placements")
                con.execute("DELETE FROM parse_cache")
            else:
                con.execute("DELETE FROM kept_placements WHERE crawl_id = ?", [crawl])
        finally:
            con.close()
        first = _run(copy, crawl, model)
        again = _run(copy, crawl, model)
    return {"db": str(db), "crawl": crawl, "first": first, "again": again}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--from-scratch", action="store_true", help="no stored placements or parses at all"
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    figures = measure(args.db, args.crawl, args.model, args.from_scratch)
    report(figures | {"wall_s": round(time.perf_counter() - started, 1)}, args.json)


if __name__ == "__main__":
    main()
