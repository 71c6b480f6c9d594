"""The candidate and scoring steps of one stored crawl, through the product's runner: CPU, wall
and the process tree's peak memory (PSS) of each step, without the hours of a full run.

    python benchmarks/bench_candidate_step.py /tmp/w100k/db-100000-graph/bench.duckdb \
        --crawl graph-full --copy-to /tmp/cand.duckdb --first-run --json /tmp/cand100k.json

The crawl must have been run up to ``site_models`` (a ``bench_pipeline.py`` database has every
step). ``--copy-to`` works on a copy (the source database is left as it is); ``--first-run``
empties the copy's parse and embedding caches, so that the step parses every sentence it
judges and embeds every word window, as the first crawl of a site does (without it the
sentences parsed by the earlier run are read back). The steps run as `linkpipe run` runs
them: shard workers of ``runner.run_workers``, memory measured by ``bench_meter.Meter``
(the PSS of this process and its live descendants, sampled every 0.2 s).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from bench_meter import Meter

from linkpipe.defs.runner import run_graph
from linkpipe.lib.storage import open_db
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

STEPS = ("candidate_pairs", "link_opportunities")


def prepare(db: Path, copy_to: Path | None, first_run: bool) -> Path:
    """The database to run on: ``db`` or a fresh copy, its caches emptied with ``first_run``."""
    if copy_to is not None:
        for stale in (copy_to, copy_to.with_name(copy_to.name + ".wal")):
            stale.unlink(missing_ok=True)
        shutil.copyfile(db, copy_to)
        db = copy_to
    if first_run:
        with open_db(db) as con:
            con.execute("DELETE FROM parse_cache")
            con.execute("DELETE FROM embedding_cache")
            con.execute("CHECKPOINT")
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a database holding the crawl")
    parser.add_argument("--crawl", required=True, help="the crawl id")
    parser.add_argument("--copy-to", type=Path, help="run on a copy of the database made here")
    parser.add_argument("--first-run", action="store_true", help="empty the copy's caches first")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    if args.first_run and args.copy_to is None:
        parser.error("--first-run empties caches: give --copy-to")
    db = prepare(args.db, args.copy_to, args.first_run)
    meter = Meter(echo=True)
    run_graph(db, args.crawl, args.model, stages=STEPS, on_step=meter.switch)
    meter.stop()
    print("| step | CPU s | wall s | peak PSS of the process tree |")
    print("|---|---|---|---|")
    for s in meter.stages:
        print(f"| {s.stage} | {s.cpu_s:,.1f} | {s.wall_s:,.1f} | {s.rss_tree_peak_mib:,.0f} MiB |")
    if args.json:
        args.json.write_text(json.dumps([s.as_dict() for s in meter.stages], indent=1))


if __name__ == "__main__":
    main()
