"""What a sentence's parse costs by the size of the batch it is parsed in: the spaCy pipeline
of :mod:`linkpipe.lib.text.parsing`, the same sentences parsed in batches of 1 to 256.

    python benchmarks/bench_parse_batches.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-full --sentences 2048 --rounds 3

The sentences are those of a sample of the crawl's page texts (split at sentence ends, more
than four words each), shuffled with a fixed seed; the parser is loaded and warmed on others
first. Printed: the median over the rounds of the CPU milliseconds a sentence for each batch
size (this process's CPU time; ``--sizes N ...`` picks the sizes: one size a process avoids
the order's effects on the later sizes).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from pathlib import Path

import duckdb

from linkpipe.lib.text.parsing import load_parser

SIZES = (1, 2, 4, 8, 16, 32, 64, 256)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences_of(db: Path, crawl: str, wanted: int) -> list[str]:
    """At least ``wanted`` + 200 sentences of the crawl's page texts, shuffled (seed 0)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        query = "SELECT main_text FROM page_summaries WHERE crawl_id = ? ORDER BY url LIMIT 2000"
        texts = [r[0] for r in con.execute(query, [crawl]).fetchall() if r[0]]
    finally:
        con.close()
    found = [s.strip() for t in texts for s in SENTENCE_END.split(t) if len(s.split()) > 4]
    random.Random(0).shuffle(found)
    if len(found) < wanted + 200:
        raise SystemExit(f"the crawl has {len(found)} sentences: fewer than {wanted + 200}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--sentences", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), metavar="N")
    args = parser.parse_args()
    found = sentences_of(args.db, args.crawl, args.sentences)
    nlp = load_parser()
    if nlp is None:
        raise SystemExit("no spaCy pipeline is installed")
    list(nlp.parse_many(found[:200]))  # loaded and warm
    chunk = found[200 : 200 + args.sentences]
    figures: dict[int, list[float]] = {size: [] for size in args.sizes}
    for _ in range(args.rounds):
        for size in args.sizes:
            started = time.process_time()
            for i in range(0, len(chunk), size):
                list(nlp.parse_many(chunk[i : i + size]))
            figures[size].append(1000 * (time.process_time() - started) / len(chunk))
    medians = {size: round(statistics.median(ms), 3) for size, ms in figures.items()}
    print(json.dumps({"ms_a_sentence_by_batch": medians, "sentences": len(chunk)}, indent=1))


if __name__ == "__main__":
    main()
