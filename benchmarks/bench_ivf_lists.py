"""An IVF index on the previous crawl's trained lists against one trained again, after 1 % of
the vectors changed: CPU of the build and how many unchanged pages keep their hits.

    python benchmarks/bench_ivf_lists.py --vectors 100000 --noise 1.0 2.0

Generated vectors (384 dimensions around 2,000 centres, ``--noise`` the spread around them:
1.0 gives the recall and probes of real embeddings at 1M pages), one thread. "Same hits": the
share of 4,000 unchanged pages whose top 21, edited pages set aside, are the first build's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from linkpipe.lib.threads import limited_threads
from linkpipe.lib.vectors.ann import AnnIndex, build_index, list_centroids

DIM, CENTRES, QUERIES = 384, 2_000, 4_000


def _unit(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def _timed(
    vectors: np.ndarray, urls: list[str], lists: np.ndarray | None
) -> tuple[AnnIndex, float]:
    start = time.process_time()
    ann = build_index(vectors, urls, lists=lists)
    return ann, time.process_time() - start


def measure(n: int, noise: float, seed: int = 0) -> None:
    """Print the three builds' CPU, kind and recall, and the share of unchanged hits."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(CENTRES, DIM)).astype(np.float32)
    x = _unit(
        centres[rng.integers(0, CENTRES, n)] + noise * rng.normal(size=(n, DIM)).astype(np.float32)
    )
    urls = [f"/p{i}" for i in range(n)]
    edited = rng.choice(n, n // 100, replace=False)
    y = x.copy()
    y[edited] = _unit(x[rng.choice(n, len(edited))] + 0.05 * rng.normal(size=(len(edited), DIM)))
    first, t_first = _timed(x, urls, None)
    again, t_again = _timed(y, urls, None)
    kept, t_kept = _timed(y, urls, list_centroids(first))
    queries = np.setdiff1d(rng.choice(n, QUERIES, replace=False), edited)
    skip = set(edited.tolist())
    _, before = first.search(x[queries], 21)

    def same(ann: AnnIndex) -> float:
        _, after = ann.search(y[queries], 21)
        return float(np.mean([
            [i for i in a if i not in skip] == [i for i in b if i not in skip]
            for a, b in zip(before, after, strict=True)
        ]))  # fmt: skip

    for label, ann, cpu in (("first", first, t_first), ("trained again", again, t_again),
                            ("lists kept", kept, t_kept)):  # fmt: skip
        hits = "" if ann is first else f", same hits {same(ann):.3f}"
        print(
            f"noise {noise}: {label}: {cpu:.1f} CPU-s, {ann.kind}, recall {ann.recall_at_k:.4f}{hits}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--vectors", type=int, default=100_000)
    parser.add_argument("--noise", type=float, nargs="+", default=[1.0, 2.0])
    args = parser.parse_args()
    with limited_threads(1):
        for noise in args.noise:
            measure(args.vectors, noise)


if __name__ == "__main__":
    main()
