"""Site-wide models at 1M pages on generated vectors and texts: ANN build, all-pages top-k,
recall@10 against exact search, (with --site-models) the lexical/name models, and (with
--candidates) candidate retrieval on a sample of sources and the scoring of every page's pairs
(see bench_pairs_1m.py).

    pip install -e '.[bench]'
    python benchmarks/bench_models_1m.py --pages 1000000 --candidates --json /tmp/m1m.json
    python benchmarks/bench_models_1m.py --pages 60000 --site-models     # a quick check

Vectors: 384-d float32, L2-normalised: one topic centroid per ~250 pages, topics grouped in
areas of ~20 (topics of one area are close), each page its centroid plus Gaussian noise (cosine
to its centroid ~0.6), so the clusters that IVF relies on exist but overlap. Stages, each measured (CPU, wall, peak RSS; see
bench_meter.py): ``generate_vectors``; ``ann_build`` (linkpipe.lib.vectors.ann.build_index,
exact below 50,000 vectors, IVF-flat above, with its own recall sample; with every core's
library threads, --ann-threads, as the product's index step, alone in its process, runs it;
every other stage with --threads, 1 by default); ``ann_query_all``
(every page's top --top-k, in batches, as candidate generation does; --query-pages limits
it); ``recall_at_10`` (exact inner-product search on --recall-sample pages vs the index);
with --site-models, ``generate_texts``, ``site_models`` (linkpipe.lib.links.site_models,
TF-IDF, lexical index and name dictionary over titles and --text-words words of main text) and
``lexical_recall`` (the index's recall against exact search on the pages the stage samples,
widened below its target, as the ``site_models`` stage does). Before ``scoring`` the process
drops the vectors, the ANN index, the texts and the site models and gives the freed heap back,
as the product's runner does: its scoring step holds the pair table and the page facts only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import faiss
import numpy as np
from bench_meter import Meter, StageUsage, total

from linkpipe.lib.heap import return_free_memory
from linkpipe.lib.threads import cores, limited_threads
from linkpipe.lib.vectors.ann import AnnIndex, build_index

PAGES_PER_TOPIC = 250
NOISE = 1.3  # noise norm relative to the unit centroid: cosine to the centroid ~0.6
BATCH = 20_000
SITE_PARTS = ("urls", "titles", "texts", "vectors", "links", "models")  # GeneratedSite's fields


def generate_vectors(n_pages: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, topic of each page): clustered, L2-normalised float32."""
    rng = np.random.default_rng(seed)
    n_topics = max(1, n_pages // PAGES_PER_TOPIC)
    areas = rng.standard_normal((max(1, n_topics // 20), dim)).astype(np.float32)
    centroids = rng.standard_normal((n_topics, dim)).astype(np.float32)
    centroids = areas[rng.integers(0, len(areas), size=n_topics)] + 0.8 * centroids
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    topics = rng.integers(0, n_topics, size=n_pages)
    vectors = np.empty((n_pages, dim), dtype=np.float32)
    for start in range(0, n_pages, BATCH):
        rows = slice(start, min(n_pages, start + BATCH))
        noise = rng.standard_normal((rows.stop - start, dim)).astype(np.float32)
        noise *= NOISE / np.sqrt(dim)
        block = centroids[topics[rows]] + noise
        vectors[rows] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return vectors, topics


def query_all(
    ann: AnnIndex, vectors: np.ndarray, k: int, limit: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """(similarities, ids) of every page's top ``k`` + 1 (itself included), or of the first
    ``limit`` pages', searched in batches."""
    n = len(vectors) if limit is None else min(limit, len(vectors))
    sims, ids = np.zeros((n, k + 1), np.float32), np.full((n, k + 1), -1, np.int64)
    for start in range(0, n, BATCH):
        stop = min(n, start + BATCH)
        sims[start:stop], ids[start:stop] = ann.search(vectors[start:stop], k + 1)
    return sims, ids


def recall_at_k(ann: AnnIndex, vectors: np.ndarray, sample: int, k: int, seed: int) -> float:
    """Share of the exact top-``k`` (inner product) that the index returns, on a sample."""
    rng = np.random.default_rng(seed + 1)  # not the rows build_index sampled
    rows = np.sort(rng.choice(len(vectors), size=min(sample, len(vectors)), replace=False))
    _, truth = faiss.knn(vectors[rows], vectors, k, metric=faiss.METRIC_INNER_PRODUCT)
    _, got = ann.search(vectors[rows], k)
    hits = sum(len(set(t) & set(g)) for t, g in zip(truth, got, strict=True))
    return hits / float(truth.size)


def generate_texts(topics: np.ndarray, words: int, seed: int) -> tuple[list[str], list[str]]:
    """(title, main text) of every page: real English words and its topic's vocabulary."""
    from sitegen_text import build_vocabulary, title_case

    n_topics = int(topics.max()) + 1
    vocab = build_vocabulary(n_topics, seed)
    rng = np.random.default_rng([seed, 8])
    titles, texts = [], []
    for topic in topics.tolist():
        titles.append(title_case(list(vocab.topical(rng, topic, int(rng.integers(2, 5))))))
        texts.append(" ".join(vocab.mixed(rng, topic, words)))
    return titles, texts


def generated_links(urls: list[str], topics: np.ndarray) -> dict[str, set[str]]:
    """Three content links a page, to pages of its topic."""
    rng = np.random.default_rng(9)
    by_topic: dict[int, list[int]] = {}
    for i, topic in enumerate(topics.tolist()):
        by_topic.setdefault(topic, []).append(i)
    return {
        urls[i]: {urls[j] for j in rng.choice(by_topic[t], size=3)}
        for i, t in enumerate(topics.tolist())
    }


def site_models(
    urls: list[str], titles: list[str], texts: list[str], links: dict[str, set[str]]
) -> Any:
    """linkpipe's site-wide lexical models over the generated pages."""
    from linkpipe.lib.links.site_models import SitePage, build_site_models

    pages = [SitePage(u, t, t, u.rsplit("/", 1)[-1]) for u, t in zip(urls, titles, strict=True)]
    texts_iter = (SitePage(u, t, t, "", x) for u, t, x in zip(urls, titles, texts, strict=True))
    return build_site_models(pages, texts_iter, links, {})


def candidates_and_pairs(
    meter: Meter,
    args: argparse.Namespace,
    site: Any,
    ann: AnnIndex,
    hits: tuple[np.ndarray, np.ndarray],
) -> tuple[Any, Any, dict[str, Any]]:
    """The candidates (a sample), then scoring's inputs (bench_pairs_1m.py): (pair table,
    page facts, figures)."""
    from bench_pairs_1m import candidates_sample, page_facts, pair_table

    facts: dict[str, Any] = {}
    with meter.measure("site_context"):
        context = site.context()
    with meter.measure("candidates_sample"):
        found = candidates_sample(site, context, ann, args.candidate_sample, args.seed)
    per_source = meter.stages[-1].cpu_s / max(1, found["sources"])
    found["cpu_ms_a_source"] = round(1000 * per_source, 3)
    found["cpu_s_every_source"] = round(per_source * len(site.urls), 1)  # extrapolated
    facts["candidates"] = found
    del context
    with meter.measure("pair_table"):
        table = pair_table(site, *hits)
    with meter.measure("page_facts"):
        pages = page_facts(site, args.seed)
    return table, pages, facts


def scoring(meter: Meter, table: Any, pages: Any) -> dict[str, Any]:
    """The scoring of every page's pairs, as the ``link_opportunities`` stage scores them."""
    from linkpipe.lib.links.site_scoring import score_site
    from linkpipe.lib.spilled import SpilledFrames
    from linkpipe.lib.stages.link_opportunities import OpportunityFrames

    with meter.measure("scoring"), TemporaryDirectory() as spill:  # as the stage does
        scores = score_site(table, pages)
        made = OpportunityFrames.of(scores.batches(), SpilledFrames(Path(spill)))
        opportunities = made.frames.rows
    return {
        "scored_pairs": len(table),
        "opportunities": opportunities,
        "weights": scores.weights.method,
    }


def index_step(meter: Meter, args: argparse.Namespace, state: dict[str, Any]) -> dict[str, Any]:
    """The product's index step on the generated site: the ANN index, every page's top-k, its
    recall and (with --site-models or --candidates) the site models; ``state`` gets what the
    later stages read."""
    facts: dict[str, Any] = {}
    vectors, topics, urls = state["vectors"], state["topics"], state["urls"]
    with meter.measure("ann_build"), limited_threads(args.ann_threads):  # as the index step
        state["ann"] = ann = build_index(vectors, urls)
    facts |= {"index": ann.kind, "build_recall_at_10": ann.recall_at_k}
    with meter.measure("ann_query_all"):
        state["hits"] = hits = query_all(ann, vectors, args.top_k, args.query_pages)
    facts["pairs"] = int((hits[1] >= 0).sum())
    with meter.measure("recall_at_10"):
        facts["recall_at_10"] = recall_at_k(ann, vectors, args.recall_sample, 10, args.seed)
    if args.site_models or args.candidates:
        with meter.measure("generate_texts"):
            titles, texts = generate_texts(topics, args.text_words, args.seed)
            links = generated_links(urls, topics)
        with meter.measure("site_models"):
            models = site_models(urls, titles, texts, links)
        facts["tfidf_terms"] = int(models.tfidf.matrix.shape[1])
        from linkpipe.lib.stages.site_index import tune_lexical_index

        with meter.measure("lexical_recall"):  # as the site_models stage measures it
            facts["lexical_recall_at_10"] = tune_lexical_index(models)[0]
        state |= {"titles": titles, "texts": texts, "links": links, "models": models}
    return facts


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every stage in order under one Meter; figures besides usage in ``facts``. Scoring
    holds what the product's scoring step holds (the pair table and the page facts): the
    product builds the index and the site models in an earlier step, whose objects are gone
    (and their freed heap given back by the runner) when scoring starts."""
    meter, state = Meter(echo=True), dict[str, Any]()
    with meter.measure("generate_vectors"):
        state["vectors"], state["topics"] = generate_vectors(args.pages, args.dim, args.seed)
    state["urls"] = [
        f"https://example.com/t{t}/p{i}.html" for i, t in enumerate(state["topics"].tolist())
    ]
    facts = index_step(meter, args, state)
    if args.candidates:
        from bench_pairs_1m import GeneratedSite

        site = GeneratedSite(*(state.pop(k) for k in SITE_PARTS))
        table, pages, found = candidates_and_pairs(
            meter, args, site, state.pop("ann"), state.pop("hits")
        )
        del site
        state.clear()
        return_free_memory()  # as the runner does after the product's steps
        facts |= found | scoring(meter, table, pages)
    stages = [s.as_dict() for s in meter.stages]
    measured = [s for s in meter.stages if not s.stage.startswith("generate")]
    return {
        "pages": args.pages,
        "dim": args.dim,
        "facts": facts,
        "stages": stages,
        "total_without_generation": total(measured, "total without generation").as_dict(),
    }


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"### {result['pages']:,} pages, {result['dim']}-d vectors",
        "",
        "| stage | CPU s | wall s | RSS self MiB | RSS tree MiB |",
        "|---|---|---|---|---|",
    ]
    for s in [*result["stages"], result["total_without_generation"]]:
        usage = StageUsage(**s)
        lines.append(
            f"| {usage.stage} | {usage.cpu_s:,.1f} | {usage.wall_s:,.1f} "
            f"| {usage.rss_self_peak_mib:,.0f} | {usage.rss_tree_peak_mib:,.0f} |"
        )
    lines += ["", ", ".join(f"{k}: {v}" for k, v in result["facts"].items())]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--top-k", type=int, default=20)
    parser.add_argument("--query-pages", type=int, default=None, help="default: every page")
    parser.add_argument("--recall-sample", type=int, default=2_000)
    parser.add_argument("--site-models", action="store_true", help="also texts + lexical models")
    parser.add_argument("--text-words", type=int, default=120)
    parser.add_argument(
        "--candidates", action="store_true", help="also candidates (a sample) + scoring"
    )
    parser.add_argument("--candidate-sample", type=int, default=20_000, metavar="SOURCES")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="library threads (FAISS, BLAS)")
    parser.add_argument(
        "--ann-threads",
        type=int,
        default=cores(),
        help="library threads of the ANN build (default: every core, as the product's index "
        "step, a site-level step alone in its process, runs it)",
    )
    parser.add_argument("--json", type=Path, default=None, metavar="PATH")
    args = parser.parse_args()
    with limited_threads(args.threads):  # spinning library threads only add CPU on a busy host
        result = run(args)
    print(_table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
