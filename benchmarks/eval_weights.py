"""Re-rank the crawls of a finished `linkpipe eval` run with other relevance weights.

The link removal is deterministic (seeded), so each seed's copy is rebuilt once and its stored
crawl (`eval-s<seed>` in `.linkpipe/eval/<site>.duckdb`) is scored with every weight set of the
grid, without crawling or embedding again. Prints recall@10 and anchor overlap of linkpipe, mean
over the seeds, one line per weight set: the tuning grid and the ablations of docs/benchmarks.md.

    python benchmarks/eval_weights.py gimp django --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from linkpipe.evaluation.crawl_eval import EVAL_SCORING
from linkpipe.evaluation.harness import load_stored_eval, site_root_of
from linkpipe.lib.links.scoring_config import ScoringConfig

ZERO = {"w_semantic": 0.0, "w_lexical": 0.0, "w_title": 0.0, "w_mention": 0.0, "w_graph": 0.0}
GRID: list[tuple[str, dict[str, float]]] = [
    ("default (0.28 / 0.19 / 0.12 / 0.35 / 0.06)", {}),
    ("session-1 weights (0.55 / 0.15 / 0.20 / 0 / 0.10, min 0.25)",
     {"w_semantic": 0.55, "w_lexical": 0.15, "w_title": 0.20, "w_mention": 0.0, "w_graph": 0.10,
      "min_relevance": 0.25}),
    ("0.55 / 0.15 / 0.20 / 0.20 / 0.10, min 0.25",
     {"w_semantic": 0.55, "w_lexical": 0.15, "w_title": 0.20, "w_mention": 0.20, "w_graph": 0.10,
      "min_relevance": 0.25}),
    *[
        (f"{s} / 0.30 / 0.20 / {m} / 0.10, min 0.25",
         {"w_semantic": s, "w_lexical": 0.30, "w_title": 0.20, "w_mention": m, "w_graph": 0.10,
          "min_relevance": 0.25})
        for s, m in ((0.45, 0.40), (0.35, 0.55), (0.45, 0.55), (0.45, 0.70))
    ],
    ("no mention", {"w_mention": 0.0}),
    ("no semantic", {"w_semantic": 0.0}),
    ("no TF-IDF", {"w_lexical": 0.0}),
    ("no exact-name anchor", {"w_title": 0.0}),
    ("no graph", {"w_graph": 0.0}),
    ("semantic alone", {**ZERO, "w_semantic": 1.0, "min_relevance": 0.0}),
    ("mention alone", {**ZERO, "w_mention": 1.0, "min_relevance": 0.0}),
]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="+", help="gimp, django or a site folder")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--fraction", type=float, default=0.2)
    args = parser.parse_args()
    results: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for site in args.sites:
        root = site_root_of(site)
        db = Path(".linkpipe/eval") / f"{Path(site).name}.duckdb"
        for seed in args.seeds:
            stored = load_stored_eval(root, db, seed, args.fraction)
            for label, weights in GRID:
                config = ScoringConfig(
                    max_per_source=EVAL_SCORING.max_per_source,
                    max_per_target=EVAL_SCORING.max_per_target,
                    **weights,
                )
                metrics, _, _ = stored.evaluate(config)
                m = metrics["linkpipe"]
                results.setdefault(label, {}).setdefault(site, []).append(
                    (m["recall@10"], m["anchor_overlap"] or 0.0)
                )
    header = " | ".join(f"{s} recall@10 | {s} anchor overlap" for s in args.sites)
    print(f"| weights | {header} |")
    print("|---" * (1 + 2 * len(args.sites)) + "|")
    for label, _ in GRID:
        cells = []
        for site in args.sites:
            runs = results[label][site]
            cells.append(f"{statistics.fmean(r for r, _ in runs):.3f}")
            cells.append(f"{statistics.fmean(a for _, a in runs):.3f}")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
