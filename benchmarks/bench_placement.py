"""The CPU of placing a crawl's kept pairs from scratch, in one process, and of building the
candidate windows of its sources.

    python benchmarks/bench_placement.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-full --work /tmp/placement.duckdb
    python benchmarks/bench_placement.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-full --windows 400

The first form copies the database to ``--work``, deletes every stored placement and every
opportunity digest (else a later crawl of the same inputs is copied, nothing placed; the
stored parses and word vectors stay: the measure is placement's own work, not the models')
and runs
``link_opportunities`` for the crawl with one worker (this process: its CPU is all of it). The
second times ``window_vectors`` of the first ``--windows`` sources (by URL) with seeded random
word vectors, five rounds. For an A/B, run it alternately with ``PYTHONPATH`` on each
version's checkout.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

import numpy as np

os.environ["LINKPIPE_WORKERS"] = "1"  # placement in this process, measured with it
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from linkpipe.lib.links.semantic_anchors import window_vectors  # noqa: E402
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities  # noqa: E402
from linkpipe.lib.stages.source_texts import source_texts_of  # noqa: E402
from linkpipe.lib.storage import open_db  # noqa: E402
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL  # noqa: E402

META = ("placements_made", "placements_reused", "parser_cpu_s", "embedder_cpu_s")


def placement(db: Path, work: Path, crawl: str, model: str) -> None:
    """Print the CPU of the crawl's placement from scratch on a copy (see the module)."""
    shutil.copyfile(db, work)
    with open_db(work) as con:
        con.execute("DELETE FROM kept_placements")
        con.execute("DELETE FROM opportunity_inputs")  # no crawl of the same inputs to copy
        con.execute("CHECKPOINT")
    started = time.process_time()
    meta = materialize_link_opportunities(work, crawl, model).meta
    print(f"placement: {time.process_time() - started:.2f} CPU s", {k: meta.get(k) for k in META})


def windows(db: Path, crawl: str, sources: int) -> None:
    """Print the CPU of ``window_vectors`` of ``sources`` sources, five rounds."""
    with open_db(db, read_only=True) as con:
        urls = [
            r[0]
            for r in con.execute(
                "SELECT url FROM page_summaries WHERE crawl_id = ? ORDER BY url LIMIT ?",
                [crawl, sources],
            ).fetchall()
        ]
        texts = source_texts_of(con, crawl, urls)
    rng = np.random.default_rng(0)
    vectors = {
        u: rng.normal(size=(len(t.tokens), 384)).astype(np.float32) for u, t in texts.items()
    }
    for n in range(5):
        started = time.process_time()
        for url, text in texts.items():
            window_vectors(text, vectors[url])
        print(f"windows round {n + 1}: {time.process_time() - started:.3f} CPU s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--work", type=Path, help="the copy placed on")
    parser.add_argument("--windows", type=int, help="time the windows of this many sources")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args()
    if args.windows:
        windows(args.db, args.crawl, args.windows)
    elif args.work is not None:
        placement(args.db, args.work, args.crawl, args.model)
    else:
        parser.error("give --work (placement) or --windows N")


if __name__ == "__main__":
    main()
