"""The lexical index's recall and query cost by settings, on a stored crawl or a generated site.

    python benchmarks/bench_lexical_settings.py --db .linkpipe/eval/gimp.duckdb
    python benchmarks/bench_lexical_settings.py --pages 1000000 --json /tmp/lexset.json
    python benchmarks/bench_lexical_settings.py --bench-site 100000 --settings 512,250,32 ...

Each settings variant (posting cap, rerank, query terms; ``--settings 1024,500,32 ...``) is
built over the same TF-IDF rows (a crawl's stored site models, the texts of
``bench_models_1m.py``, or with ``--bench-site`` the content pages of ``gen_large_site.py``'s
site as title and body text without the HTML around them, fitted by linkpipe: within ~0.01 of
the recall of the crawled site's stored models, at a minute instead of a crawl). For each:
recall@10 against exact search on the pages the ``site_models`` stage samples
(``tune_lexical_index``: 500, before any widening),
and the CPU of a query asking the 14 neighbours the candidate step asks at 1M pages
(median of ``--rounds`` rounds over ``--queries`` sampled pages, variants alternating).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from linkpipe.lib.stages.site_index import RECALL_K, RECALL_QUERIES
from linkpipe.lib.text.lexical_index import (
    IndexSettings,
    LexicalIndex,
    exact_neighbours,
    recall_at_k,
    sample_rows,
)
from linkpipe.lib.threads import limited_threads

QUERY_K = 14  # neighbours a source asks at 1M pages (k_lexical + 1 + its linked pages)


def stored_matrix(db: Path, crawl_id: str | None) -> tuple[sparse.csr_matrix, str]:
    """The TF-IDF rows of a stored crawl's site models (default: the latest complete crawl)."""
    from linkpipe.lib.stages.site_models import load_site_models
    from linkpipe.lib.storage import fetch_dicts, open_db

    if crawl_id is None:
        with open_db(db, read_only=True) as con:
            latest = fetch_dicts(con, "read/select_latest_crawl")
        if not latest:
            raise SystemExit(f"{db}: no complete crawl")
        crawl_id = str(latest[0]["crawl_id"])
    return load_site_models(db, crawl_id).tfidf.matrix, crawl_id


def generated_matrix(pages: int, seed: int) -> sparse.csr_matrix:
    """The TF-IDF rows of the generated site of ``bench_models_1m.py``."""
    from bench_models_1m import generate_texts

    from linkpipe.lib.text.tfidf import analyse, fit_model

    topics = np.random.default_rng(seed).integers(0, max(1, pages // 250), size=pages)
    titles, texts = generate_texts(topics, 120, seed)
    pairs = enumerate(zip(titles, texts, strict=True))
    return fit_model((f"/p{i}", analyse(f"{t} {x}")) for i, (t, x) in pairs).matrix


def bench_site_matrix(pages: int, seed: int = 1) -> sparse.csr_matrix:
    """The TF-IDF rows of ``gen_large_site.py``'s content pages of ``pages`` (titles and body
    text; near duplicates left out as the crawl's canonical rule leaves them)."""
    import re

    from sitegen_plan import default_topics, plan_site
    from sitegen_render import page_body
    from sitegen_text import build_vocabulary

    from linkpipe.lib.text.tfidf import analyse, fit_model

    tag = re.compile(r"<[^>]+>")
    vocab = build_vocabulary(default_topics(pages), seed)
    plan = plan_site(pages, seed, vocab, default_topics(pages))

    def documents() -> Iterator[tuple[str, list[str]]]:
        for page in range(pages):
            if plan.original.get(page, page) == page:
                rng = np.random.default_rng([plan.seed, 3, page])
                body, _ = page_body(plan, vocab, page, rng, None)
                yield plan.paths[page], analyse(f"{plan.titles[page]} {tag.sub(' ', body)}")

    return fit_model(documents()).matrix


def measure(
    matrix: sparse.csr_matrix, variants: list[IndexSettings], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Recall and CPU a query of each variant over the same sampled pages."""
    sample = sample_rows(matrix.shape[0], RECALL_QUERIES)
    exact = exact_neighbours(matrix, sample, RECALL_K + 1)
    indexes = [LexicalIndex(matrix, s) for s in variants]
    rng = np.random.default_rng(args.seed + 1)
    queries = np.sort(rng.choice(matrix.shape[0], min(args.queries, matrix.shape[0]), False))
    rows = queries.tolist()
    cpu: list[list[float]] = [[] for _ in variants]
    for _ in range(args.rounds):
        for i, index in enumerate(indexes):
            started = time.process_time()
            index.neighbours(rows, QUERY_K)
            cpu[i].append(1000 * (time.process_time() - started) / len(rows))
    return [
        {
            "posting_cap": s.posting_cap,
            "rerank": s.rerank,
            "query_terms": s.query_terms,
            "recall_at_10": round(recall_at_k(index, sample, RECALL_K, exact), 4),
            "cpu_ms_a_query": round(statistics.median(times), 3),
        }
        for s, index, times in zip(variants, indexes, cpu, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", type=Path, default=None, help="a linkpipe database")
    parser.add_argument("--crawl-id", default=None)
    parser.add_argument("--pages", type=int, default=100_000, help="generated, without --db")
    parser.add_argument(
        "--bench-site", type=int, default=0, metavar="PAGES", help="gen_large_site.py's texts"
    )
    parser.add_argument("--settings", nargs="+", default=["1024,500,32", "1024,250,16"])
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, metavar="PATH")
    args = parser.parse_args()
    variants = [IndexSettings(*(int(v) for v in s.split(","))) for s in args.settings]
    with limited_threads(1):
        if args.db:
            matrix, source = stored_matrix(args.db, args.crawl_id)
            source = f"{args.db} crawl {source}"
        elif args.bench_site:
            matrix = bench_site_matrix(args.bench_site)
            source = f"gen_large_site.py texts, {args.bench_site:,} pages"
        else:
            matrix, source = generated_matrix(args.pages, args.seed), f"generated {args.pages:,}"
        results = measure(matrix, variants, args)
    print(f"{source}: {matrix.shape[0]:,} pages, {matrix.shape[1]:,} terms")
    print("| posting cap | rerank | query terms | recall@10 | CPU ms a query |")
    print("|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['posting_cap']} | {r['rerank']} | {r['query_terms']} "
            f"| {r['recall_at_10']:.4f} | {r['cpu_ms_a_query']:.3f} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"source": source, "results": results}, indent=1))


if __name__ == "__main__":
    main()
