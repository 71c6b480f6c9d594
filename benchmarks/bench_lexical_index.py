"""The lexical index's queries on a large generated site, by postings layout, in one run.

    python benchmarks/bench_lexical_index.py --pages 1000000 --json /tmp/lex.json

Pages: the texts of ``bench_models_1m.py`` (120 words of real English a page, topic
vocabularies, pages of a topic spread over the site), TF-IDF fitted by linkpipe. Then every
layout answers the same sampled queries (``LexicalIndex.neighbours``, k = 14 as the candidate
step asks), rounds alternating, CPU per query as the median of the rounds:

* ``rows, one block``: the postings as a plain terms x pages matrix in row order (the layout
  before the cache blocks);
* ``grouped, one block``: pages positioned by their heaviest term, not cut;
* ``grouped, blocks``: the product's layout (``lib/text/postings.py``).

Every layout must find the same pages for every query (checked, printed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_models_1m import generate_texts

from linkpipe.lib.text.lexical_index import IndexSettings, LexicalIndex, heaviest
from linkpipe.lib.text.postings import BLOCK_PAGES, Postings, build_postings
from linkpipe.lib.text.tfidf import analyse, fit_model
from linkpipe.lib.threads import limited_threads


def layouts(index: LexicalIndex) -> dict[str, Postings]:
    """The three layouts of the index's postings (see the module's docstring)."""
    matrix = index.matrix
    champions = heaviest(matrix.T.tocsr(), index.settings.posting_cap)
    in_rows = Postings(champions, np.arange(matrix.shape[0], dtype=np.int32))
    return {
        "rows, one block": in_rows,
        "grouped, one block": build_postings(champions, matrix, block_pages=matrix.shape[0]),
        f"grouped, blocks of {BLOCK_PAGES:,}": build_postings(champions, matrix),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Fit, build the layouts, answer the queries round by round."""
    rng = np.random.default_rng(args.seed)
    topics = rng.integers(0, max(1, args.pages // 250), size=args.pages)
    started = time.process_time()
    titles, texts = generate_texts(topics, 120, args.seed)
    pairs = enumerate(zip(titles, texts, strict=True))
    documents = ((f"/p{i}", analyse(f"{t} {x}")) for i, (t, x) in pairs)
    index = LexicalIndex(fit_model(documents).matrix, IndexSettings())
    fit_s = time.process_time() - started
    queries = np.sort(rng.choice(args.pages, size=min(args.queries, args.pages), replace=False))
    rows = queries.tolist()
    cpu: dict[str, list[float]] = {}
    found: dict[str, list[np.ndarray]] = {}
    variants = layouts(index)
    for _ in range(args.rounds):
        for name, postings in variants.items():
            layout = LexicalIndex(index.matrix, index.settings, postings)
            start = time.process_time()
            found[name] = layout.neighbours(rows, 14)
            cpu.setdefault(name, []).append(1000 * (time.process_time() - start) / len(rows))
    reference = next(iter(found.values()))
    same = {
        name: sum(np.array_equal(a, b) for a, b in zip(reference, got, strict=True))
        for name, got in found.items()
    }
    medians = {name: statistics.median(values) for name, values in cpu.items()}
    return {
        "pages": args.pages,
        "terms": int(index.matrix.shape[1]),
        "queries": len(rows),
        "fit_and_generate_cpu_s": round(fit_s, 1),
        "cpu_ms_a_query_median": {k: round(v, 3) for k, v in medians.items()},
        "cpu_ms_a_query_rounds": {k: [round(x, 3) for x in v] for k, v in cpu.items()},
        "queries_identical_to_rows_layout": same,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=2_048)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, metavar="PATH")
    args = parser.parse_args()
    with limited_threads(1):
        result = run(args)
    base = result["cpu_ms_a_query_median"]["rows, one block"]
    for name, ms in result["cpu_ms_a_query_median"].items():
        same = result["queries_identical_to_rows_layout"][name]
        print(f"{name}: {ms:.3f} ms a query ({base / ms:.2f}x), {same} of {result['queries']} same")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
