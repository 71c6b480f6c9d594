"""Stored crawls run again through the product's runner, every step but the crawl, on a copy of
their database: the CPU and wall time of each step of a refresh without serving and crawling
the site again.

    python benchmarks/bench_rerun.py /tmp/b1k/db-1000-graph/bench.duckdb \
        --copy-to /tmp/rerun/bench.duckdb graph-refresh-unchanged graph-refresh-edited

The crawls run in the order given, in one process, as a nightly ``linkpipe run`` of each would
(``run_graph`` with every asset but ``crawl_export``; the copy gets the database's Dagster home
too, and its published copy, which the refresh updates). The copy first loses every row the
crawls' steps after the crawl wrote (their partitions of every table but the crawl's pages
and links, and their mapped arrays): a step that reuses stored results by key (anchor
placements by anchor key, from any kept crawl) would otherwise find the crawl's own results
and do less than the crawl did (the pages' sentences and in-text links, kept by text key
and not partitions, stay: a rerun's extractions find their keys stored and add none, ~0.1
CPU-s of a 10k refresh's writes). With ``--fresh-caches`` the copy's
embedding and parse caches first lose what the crawls
added (rows created since the first of them started), so that the rerun embeds and parses
what those crawls did, loading the models where they did (without it a rerun finds every
text embedded and every sentence parsed). Run it alternately with two versions of the code (``PYTHONPATH``) for an A/B of a
refresh: each step's work is the same as long as neither version changes ``linkpipe/lib``
(a digest of that code is an input of every stored result: another one recomputes what the
refresh would copy; then rerun the full crawl first, then the refreshes, on both sides).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from bench_candidate_step import prepare
from bench_meter import Meter

from linkpipe.defs.assets import ALL_ASSETS
from linkpipe.defs.runner import run_graph
from linkpipe.lib.mapped import drop_arrays
from linkpipe.lib.storage import CRAWL_TABLES, SHARD_TABLES, open_db
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL


def copy_database(db: Path, copy_to: Path) -> Path:
    """A fresh copy of ``db``, of its published copy and of the Dagster home beside it at
    ``copy_to`` (without the published copy a rerun would write it whole, not update it as a
    nightly refresh does)."""
    copy_to.parent.mkdir(parents=True, exist_ok=True)
    prepare(db, copy_to, first_run=False)
    published = db.with_name(db.stem + ".published.duckdb")
    if published.is_file():
        shutil.copyfile(published, copy_to.with_name(copy_to.stem + ".published.duckdb"))
    home = copy_to.parent / "dagster_home"
    shutil.rmtree(home, ignore_errors=True)
    if (db.parent / "dagster_home").is_dir():
        shutil.copytree(db.parent / "dagster_home", home)
    return copy_to


CRAWL_EXPORT_TABLES = frozenset({"crawl_pages", "crawl_links", "crawl_parses"})
KEPT_TABLES = CRAWL_EXPORT_TABLES | {"crawl_runs", "whatif_pages"}  # the crawl's, the user's


def forget_results(db: Path, crawls: list[str]) -> int:
    """Delete the ``crawls``' partitions of every table their steps after ``crawl_export``
    write (:data:`KEPT_TABLES` stay) and their mapped arrays; rows deleted."""
    deleted = 0
    with open_db(db) as con:
        for table in sorted((CRAWL_TABLES | SHARD_TABLES) - KEPT_TABLES):
            query = f"DELETE FROM {table} WHERE crawl_id IN (SELECT unnest(?))"
            deleted += con.execute(query, [crawls]).fetchone()[0]
        con.execute("CHECKPOINT")
    drop_arrays(db, set(crawls))
    return deleted


def drop_cached_since(db: Path, crawls: list[str]) -> tuple[int, int]:
    """Delete the embedding and parse cache rows created since the first of ``crawls``
    started; (embeddings, parses) deleted."""
    with open_db(db) as con:
        query = "SELECT min(created_at) FROM crawls WHERE crawl_id IN (SELECT unnest(?))"
        start = con.execute(query, [crawls]).fetchone()[0]
        cached = [
            con.execute(f"DELETE FROM {table} WHERE created_at >= ?", [start]).fetchone()[0]
            for table in ("embedding_cache", "parse_cache")
        ]
        con.execute("CHECKPOINT")
    return cached[0], cached[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a database holding the crawls")
    parser.add_argument("crawls", nargs="+", help="the crawl ids, in the order to run them")
    parser.add_argument("--copy-to", type=Path, required=True, help="work on a copy made here")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument(
        "--fresh-caches", action="store_true", help="embed and parse what the crawls did"
    )
    args = parser.parse_args()
    db = copy_database(args.db, args.copy_to)
    print(f"rows of the crawls' steps deleted: {forget_results(db, args.crawls)}", flush=True)
    if args.fresh_caches:
        embeddings, parses = drop_cached_since(db, args.crawls)
        print(f"cache rows deleted: {embeddings} embeddings, {parses} parses", flush=True)
    stages = tuple(a.key.path[-1] for a in ALL_ASSETS if a.key.path[-1] != "crawl_export")
    for crawl in args.crawls:
        meter = Meter()
        run_graph(db, crawl, args.model, stages=stages, on_step=meter.switch)
        meter.stop()
        steps = {s.stage: round(s.cpu_s, 2) for s in meter.stages}
        print(crawl, json.dumps({**steps, "total": round(sum(steps.values()), 2)}), flush=True)
        walls = {s.stage: round(s.wall_s, 2) for s in meter.stages}
        print(crawl, "wall", json.dumps({**walls, "total": round(sum(walls.values()), 2)}))


if __name__ == "__main__":  # the shard workers import this module: nothing runs then
    main()
