"""The placement of a stored crawl's kept pairs alone: ``link_opportunities`` recomputed with
every kept pair placed anew (no stored placement taken), with a worker's library threads, on a
copy of the database. With the copy's caches filled (a second run) it measures placement's own
code; ``--first-run`` empties the parse and embedding caches first, as a site's first crawl.

    python benchmarks/bench_kept_placement.py DB --crawl graph-full --copy-to /tmp/kept.duckdb

``--forget-parses`` empties the parse cache only (word vectors stay cached): the parser's
share of placement, with the sentences parsed (the cache's new rows) in the figures.

``--reuse`` measures a refresh's step instead: the crawl's own scored rows and placements are
deleted from the copy, and its kept pairs take the placements other crawls stored for their
keys (the step as it runs, with the copy's workers; the crawl's rows are computed anew).

Prints the step's CPU seconds, the models' share (from its metadata) and the suggestions
placed in a sentence: run it alternately with two versions of the code on the same database
for an A/B.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench_candidate_step import prepare

from linkpipe.lib.stages.link_opportunities import (
    OPPORTUNITY_TABLES,
    materialize_link_opportunities,
)
from linkpipe.lib.storage import open_db
from linkpipe.lib.threads import limited_threads
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL


def forget_scored_rows(db: Path, crawl_id: str) -> None:
    """Delete the crawl's rows of the scoring step (and its inputs' digest, so that nothing is
    copied): its kept pairs can then take only other crawls' placements."""
    with open_db(db) as con:
        for table in (*OPPORTUNITY_TABLES, "opportunity_inputs"):
            con.execute(f"DELETE FROM {table} WHERE crawl_id = ?", [crawl_id])
        con.execute("CHECKPOINT")


def _parses_stored(db: Path) -> int:
    """Rows of the parse cache (with ``--forget-parses``: the sentences the step parsed)."""
    with open_db(db) as con:
        row = con.execute("SELECT count(*) FROM parse_cache").fetchone()
    return int(row[0]) if row else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a database holding the crawl's candidates")
    parser.add_argument("--crawl", required=True, help="the crawl id")
    parser.add_argument("--copy-to", type=Path, required=True, help="work on a copy made here")
    parser.add_argument("--first-run", action="store_true", help="empty the copy's caches first")
    parser.add_argument("--threads", type=int, default=1, help="library threads (a worker's: 1)")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--reuse", action="store_true", help="take other crawls' placements")
    parser.add_argument("--forget-parses", action="store_true", help="empty the parse cache")
    args = parser.parse_args()
    db = prepare(args.db, args.copy_to, args.first_run)
    if args.reuse:
        forget_scored_rows(db, args.crawl)
    if args.forget_parses:
        with open_db(db) as con:
            con.execute("DELETE FROM parse_cache")
            con.execute("CHECKPOINT")
    started = time.process_time()
    with limited_threads(args.threads):
        result = materialize_link_opportunities(db, args.crawl, args.model, reuse=args.reuse)
    figures = {
        "cpu_s": round(time.process_time() - started, 2),
        **{k: result.meta.get(k, 0) for k in ("embedder_cpu_s", "parser_cpu_s")},
        **{k: result.meta[k] for k in ("placements_made", "placements_reused")},
        "placements_completed": result.meta.get("placements_completed", 0),
        "in_sentence": result.meta["in_sentence"],
        "parses_stored": _parses_stored(db),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
