"""The CPU of measuring a crawl's lexical index as a build does: its recall against exact
search on the sampled pages, widened from the default settings while below the target.

    python benchmarks/bench_site_index.py /tmp/b10/db-10000-graph/bench.duckdb \
        --crawl graph-refresh-edited --rounds 3

What an update of the site models no longer spends (it keeps the previous crawl's settings and
measure, ``lib/stages/site_index.py``). Reads the stored models; writes nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from linkpipe.lib.stages.site_index import tune_lexical_index
from linkpipe.lib.stages.site_models import load_site_models
from linkpipe.lib.text.lexical_index import IndexSettings, LexicalIndex


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    models = load_site_models(args.db, args.crawl)
    print("stored settings:", models.index.settings)
    for n in range(args.rounds):
        models.index = LexicalIndex(models.tfidf.matrix, IndexSettings())  # a build's start
        started = time.process_time()
        recall, sampled = tune_lexical_index(models)
        print(
            f"round {n + 1}: {time.process_time() - started:.2f} CPU s, recall {recall:.4f} "
            f"on {sampled} pages, settings {models.index.settings}"
        )


if __name__ == "__main__":
    main()
