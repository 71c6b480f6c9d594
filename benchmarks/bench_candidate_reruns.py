"""The candidate step of stored crawls computed again from scratch, every shard in this process,
on a copy of their database: CPU, what the refreshes kept, where their time went (the phases
``bench_candidate_phases.py`` times: lexical queries, kept lists, gate digests...), and
every stored TF-IDF list checked against a fresh query of its crawl's index.

    python benchmarks/bench_candidate_reruns.py /tmp/b30/db-30000-graph/bench.duckdb \
        --copy-to /tmp/rerun/bench.duckdb --verify graph-refresh-edited

The copy first loses the crawls' ``candidate_pairs``, ``candidate_inputs`` and
``candidate_sources`` rows; the crawls then run in the order given (give the full crawl and
the refreshes before the one measured when the code that stores the lists changed: a
refresh keeps what the crawl before it stored). Everything but the candidate step is the
database's. ``--only-last`` computes the crawls before the last one once and then reruns
the last one ``--rounds`` times on fresh copies (alternate two versions of the code with
``PYTHONPATH`` for an A/B). ``--verify`` queries the index again for every full list the
crawls stored and counts the lists, floors, next pages and runners-up that differ (expected:
none).
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import duckdb
from bench_candidate_phases import CPU, instrument

from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.site_models import load_site_models
from linkpipe.lib.text import lexical_index
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

TABLES = ("candidate_pairs", "candidate_inputs", "candidate_sources")
FIGURES = ("sources", "sources_quiet", "sources_hits_kept", "sources_lists_kept")


def fresh_copy(db: Path, copy: Path, crawls: list[str]) -> None:
    """``db`` copied to ``copy`` without the crawls' candidate rows."""
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(db, copy)
    with duckdb.connect(str(copy)) as con:
        for table in TABLES:
            con.execute(f"DELETE FROM {table} WHERE crawl_id IN (SELECT unnest(?))", [crawls])


def run_crawl(db: Path, crawl: str, model: str) -> dict[str, float]:
    """Every shard of the crawl's candidate step: CPU, the figures summed, the CPU of the
    phases :func:`bench_candidate_phases.instrument` times."""
    CPU.clear()
    figures = dict.fromkeys(FIGURES, 0.0)
    started = time.process_time()
    for shard in range(DEFAULT_SHARDS):
        meta = materialize_candidate_pairs(db, crawl, shard, model).meta
        for key in FIGURES:
            figures[key] += float(meta.get(key, 0))
    figures["cpu_s"] = time.process_time() - started
    return figures | {f"{k} cpu_s": v for k, v in CPU.items()}


def verify(db: Path, crawl: str) -> dict[str, int]:
    """Every full list the crawl stored against a fresh query of its index."""
    models = load_site_models(db, crawl)
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT source_url, lexical_hits, lexical_floor, lexical_nexts, "
            "lexical_next_partials, lexical_runner, lexical_runner_cosine FROM candidate_sources "
            "WHERE crawl_id = ? AND lexical_hits IS NOT NULL AND lexical_floor > 0",
            [crawl],
        ).fetchall()
    row_of, urls = models.tfidf.row_of, models.tfidf.urls
    asked = [r for r in rows if r[0] in row_of]
    bounds: list[lexical_index.Bounds] = []
    found = models.index.neighbours(
        [row_of[r[0]] for r in asked], [len(r[1]) for r in asked], bounds=bounds
    )
    wrong = dict.fromkeys(("lists", "floors", "next pages", "runners-up"), 0)
    for (_, hits, floor, nexts, sums, runner, cosine), near, b in zip(
        asked, found, bounds, strict=True
    ):
        wrong["lists"] += [urls[j] for j in near] != list(hits)
        wrong["floors"] += b.floor != floor
        now = [urls[j] for j in b.next_rows[: len(nexts or [])]]
        pairs = zip(b.next_partials, sums or [], strict=False)  # a shorter query: `now` differs
        close = all(abs(x - y) <= lexical_index.TIE for x, y in pairs)
        wrong["next pages"] += bool(nexts) and (now != list(nexts) or not close)
        known = b.runner_row >= 0 and urls[b.runner_row] == runner and b.runner_cosine == cosine
        wrong["runners-up"] += runner is not None and not known
    return {"lists checked": len(asked)} | wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a database holding the crawls")
    parser.add_argument("crawls", nargs="+", help="the crawl ids, in the order to run them")
    parser.add_argument("--copy-to", type=Path, required=True, help="work on a copy made here")
    parser.add_argument("--only-last", action="store_true", help="time the last crawl alone")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--verify", action="store_true", help="check the stored lists")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args()
    instrument()
    fresh_copy(args.db, args.copy_to, args.crawls)
    before = args.crawls[:-1] if args.only_last else args.crawls
    for crawl in before:
        print(crawl, _rounded(run_crawl(args.copy_to, crawl, args.model)), flush=True)
    if args.only_last:
        base = args.copy_to.with_name(args.copy_to.stem + ".base.duckdb")
        shutil.copyfile(args.copy_to, base)
        for _ in range(args.rounds):
            fresh_copy(base, args.copy_to, args.crawls[-1:])
            print(args.crawls[-1], _rounded(run_crawl(args.copy_to, args.crawls[-1], args.model)))
        base.unlink()
    if args.verify:
        for crawl in args.crawls:
            print(crawl, "wrong:", verify(args.copy_to, crawl), flush=True)


def _rounded(figures: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 2) for k, v in figures.items()}


if __name__ == "__main__":
    main()
