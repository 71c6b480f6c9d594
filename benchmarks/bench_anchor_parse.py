"""CPU of one candidate_pairs shard with the sentences placements judge parsed in shared batches
(``parse_rounds.place_in_rounds``: "rounds") or one at a time when first judged ("single"),
each in a fresh process with one library thread (as a shard worker on two cores), the parser
and model loaded before timing, no anchor reuse. Prints CPU, sentences parsed and the CPU
spent parsing them.

    python benchmarks/bench_anchor_parse.py --db /tmp/bench2/db-1000-direct/bench.duckdb \\
        --crawl-id direct-full --shard 0

The database is one that benchmarks/bench_pipeline.py wrote (its word vectors are cached, so
the figure is anchors and parsing, not first-time word embedding). It is rewritten in place:
the shard's candidate_pairs rows are recomputed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

CHILD = """
import sys, time
from linkpipe.lib.links import parse_rounds
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.page_embeddings import cached_embedder
from linkpipe.lib.text.phrases import PhraseJudge, default_judge
from linkpipe.lib.threads import limited_threads
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL
mode, db, crawl_id, shard = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if mode == "single":
    parse_rounds.MAX_PARSE_ROUNDS = 0  # every placement parses what it judges at once
parsing = [0.0]
for name in ("prepare", "parse"):
    def timed(self, arg, _orig=getattr(PhraseJudge, name)):
        start = time.process_time()
        try:
            return _orig(self, arg)
        finally:
            parsing[0] += time.process_time() - start
    setattr(PhraseJudge, name, timed)
with limited_threads(1):
    judge = default_judge()
    judge.parse("Warm the parser up.")
    cached_embedder(DEFAULT_MODEL).dim  # the model loaded before timing
    start = time.process_time()
    result = materialize_candidate_pairs(db, crawl_id, shard, DEFAULT_MODEL, reuse=False)
    cpu = time.process_time() - start
sources = result.meta["sources"]
print(f"{mode:6s} cpu {cpu:7.1f} s  sources {sources}  {1000 * cpu / sources:6.1f} ms/source"
      f"  sentences parsed {judge.parsed_sentences - 1}  parsing {parsing[0]:.1f} s")
"""


def main() -> None:
    """Run both modes one after the other and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--crawl-id", required=True)
    parser.add_argument("--shard", type=int, default=0)
    args = parser.parse_args()
    for mode in ("rounds", "single"):
        started = time.perf_counter()
        argv = [sys.executable, "-c", CHILD, mode, args.db, args.crawl_id, str(args.shard)]
        out = subprocess.run(argv, capture_output=True, text=True, check=True)
        print(out.stdout.strip(), f" (wall {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
