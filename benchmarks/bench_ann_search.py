"""An exact index's search as the candidate step makes it: FAISS's default kernel cut against
linkpipe's (``ann.BLAS_THRESHOLD``), in one run.

    python benchmarks/bench_ann_search.py --sizes 10000 49000 100000 --json /tmp/ann_search.json

Unit vectors of 384 dimensions (the default model's) around one centre per 250 pages (topics),
indexed as the product indexes them (exact below ``EXACT_THRESHOLD`` pages, IVF above, its
probes tuned), ``--queries`` of its own rows searched
``--batch`` at a time for their top 41 (k + 1 + 20 linked pages, a typical source), one
library thread. Rounds alternate the two settings; CPU ms a query is the median of the
rounds. Prints whether both found the same neighbours (their similarities may differ in the
last bits: the two kernels add up in another order).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import faiss
import numpy as np

from linkpipe.lib.threads import limited_threads
from linkpipe.lib.vectors.ann import BLAS_THRESHOLD, build_index

FAISS_DEFAULT = 128_000  # FAISS 1.15's distance_compute_blas_threshold (query values)
DIMENSIONS = 384
TOP = 41


def one_round(ann: Any, queries: np.ndarray, batch: int, threshold: int) -> tuple[float, Any]:
    """CPU ms a query of searching ``queries`` ``batch`` at a time with ``threshold``, and the
    ids found."""
    faiss.cvar.distance_compute_blas_threshold = threshold
    found = []
    started = time.process_time()
    for first in range(0, len(queries), batch):
        found.append(ann.search(queries[first : first + batch], TOP)[1])
    spent = time.process_time() - started
    faiss.cvar.distance_compute_blas_threshold = BLAS_THRESHOLD
    return 1000 * spent / len(queries), np.concatenate(found)


def run_size(pages: int, args: argparse.Namespace) -> dict[str, Any]:
    """Both settings on one index of ``pages`` vectors, rounds alternating."""
    rng = np.random.default_rng(args.seed)
    centres = rng.normal(size=(max(1, pages // 250), DIMENSIONS))
    x = centres[rng.integers(0, len(centres), size=pages)]
    x = (x + rng.normal(size=x.shape)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    ann = build_index(x, [f"/p{i}" for i in range(pages)])
    queries = x[rng.choice(pages, size=min(args.queries, pages), replace=False)]
    cpu: dict[str, list[float]] = {"faiss_default": [], "linkpipe": []}
    ids: dict[str, Any] = {}
    for _ in range(args.rounds):
        for name, threshold in (("faiss_default", FAISS_DEFAULT), ("linkpipe", BLAS_THRESHOLD)):
            ms, ids[name] = one_round(ann, queries, args.batch, threshold)
            cpu[name].append(ms)
    same = float(np.mean(ids["faiss_default"] == ids["linkpipe"]))
    medians = {name: statistics.median(v) for name, v in cpu.items()}
    return {
        "pages": pages,
        "kind": ann.kind,
        "cpu_ms_per_query": medians,
        "rounds": cpu,
        "ratio": medians["linkpipe"] / medians["faiss_default"],
        "same_neighbours": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 49_000, 100_000])
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--batch", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    results = []
    with limited_threads(1):
        for pages in args.sizes:
            result = run_size(pages, args)
            m = result["cpu_ms_per_query"]
            print(
                f"{pages:>9,} pages ({result['kind']}), batches of {args.batch}: FAISS's cut "
                f"{m['faiss_default']:.3f} ms a query, linkpipe's {m['linkpipe']:.3f} "
                f"(x{result['ratio']:.3f}); same neighbours {result['same_neighbours']:.4f}",
                flush=True,
            )
            results.append(result)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"batch": args.batch, "results": results}, out, indent=1)


if __name__ == "__main__":
    main()
