"""One crawl's candidate shards computed again on a copy of a benchmark database: the CPU of each
round and what the shard reused (sources quiet, gated pair by pair, searches kept, parses).

    python benchmarks/bench_candidate_shard.py /tmp/b10new/db-10000-graph/bench.duckdb \
        --crawl graph-refresh-edited --shards 0 --rounds 3 --copy-to /tmp/shard.duckdb

Each round runs ``materialize_candidate_pairs`` of the shards in this process, as a shard
worker does, against the crawl's previous crawl: a refresh's shard is computed again from the
same stored state every round (its rows are replaced with the same rows). For an A/B of two
versions of the code, run it alternately with ``PYTHONPATH`` on each version's checkout, each
on a database its own version made: the code of ``linkpipe/lib`` is in every reuse digest, so
a version other than the database's recomputes every source. ``--compute-copied``: a shard
whose inputs equal the previous crawl's is computed source by source, not copied whole (the
cost of a shard all of whose sources are quiet: an unchanged refresh's). ``--fresh-parses``:
the stored parses are deleted before each round, so that the shard parses every sentence its
placements judge, as a site's first crawl does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from linkpipe.lib.stages import candidate_pairs  # noqa: E402
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs  # noqa: E402
from linkpipe.lib.storage import open_db  # noqa: E402
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL  # noqa: E402

REUSE = (
    "sources", "sources_quiet", "sources_gated_by_pair", "sources_hits_kept",
    "sources_lists_kept", "pairs_copied", "anchors_reused", "parses_loaded", "parses_stored",
    "parser_cpu_s",
)  # fmt: skip


def measure(
    db: Path, crawl: str, shards: list[int], rounds: int, model: str, fresh: bool = False
) -> dict[str, Any]:
    """CPU seconds of each round (every shard once) and the last round's reuse figures;
    ``fresh``: the stored parses deleted before each round (a first crawl's parsing)."""
    cpu: list[float] = []
    reuse: dict[str, dict[str, Any]] = {}
    for _ in range(rounds):
        if fresh:
            with open_db(db) as con:
                con.execute("DELETE FROM parse_cache")
        started = time.process_time()
        for shard in shards:
            meta = materialize_candidate_pairs(db, crawl, shard, model).meta
            reuse[str(shard)] = {k: meta.get(k) for k in REUSE}
        cpu.append(round(time.process_time() - started, 3))
        print(f"round {len(cpu)}: {cpu[-1]:.2f} CPU s", flush=True)
    return {"cpu_s": cpu, "median_cpu_s": statistics.median(cpu), "reuse": reuse}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--shards", default="0", help="comma-separated shard numbers")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copy-to", type=Path, help="work on a copy made here")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--compute-copied", action="store_true", help="compute a shard the step would copy"
    )
    parser.add_argument(
        "--fresh-parses", action="store_true", help="parse every sentence judged, each round"
    )
    args = parser.parse_args()
    if args.compute_copied:
        candidate_pairs.copy_unchanged_shard = lambda *_: None  # type: ignore[assignment]
    db = args.db
    if args.copy_to is not None:
        shutil.copyfile(db, args.copy_to)
        db = args.copy_to
    shards = [int(s) for s in args.shards.split(",")]
    result = measure(db, args.crawl, shards, args.rounds, args.model, args.fresh_parses)
    print(json.dumps(result, indent=1))
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
