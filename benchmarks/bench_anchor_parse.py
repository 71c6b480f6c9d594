"""CPU of one candidate_pairs shard with sentences parsed in one batch per source ("batch")
or one at a time when first judged ("lazy"), each in a fresh process, no anchor reuse.

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
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.text.phrases import default_judge
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL
mode, db, crawl_id, shard = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if mode == "lazy":
    SourceText.prepare = lambda self: None
judge = default_judge()
judge.parse("Warm the parser up.")
start = time.process_time()
result = materialize_candidate_pairs(db, crawl_id, shard, DEFAULT_MODEL, reuse=False)
cpu = time.process_time() - start
sources = result.meta["sources"]
print(f"{mode:5s} cpu {cpu:7.1f} s  sources {sources}  {1000 * cpu / sources:6.1f} ms/source"
      f"  sentences parsed {judge.parsed_sentences}")
"""


def main() -> None:
    """Run both modes one after the other and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--crawl-id", required=True)
    parser.add_argument("--shard", type=int, default=0)
    args = parser.parse_args()
    for mode in ("batch", "lazy"):
        started = time.perf_counter()
        argv = [sys.executable, "-c", CHILD, mode, args.db, args.crawl_id, str(args.shard)]
        out = subprocess.run(argv, capture_output=True, text=True, check=True)
        print(out.stdout.strip(), f" (wall {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
