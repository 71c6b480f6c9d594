"""Candidates and scoring of the generated 1M-page site (``bench_models_1m.py --candidates``).

* ``candidates_sample``: linkpipe's candidate retrieval (:func:`linkpipe.lib.links.retrieval.retrieve`:
  embedding neighbours through the ANN index, TF-IDF neighbours through the lexical index,
  the names a source's text mentions through the name dictionary, labelled pairs) and the
  evidence of each pair (TF-IDF cosine, co-citation and shared neighbours) for a sample of
  sources, on the full site's context; its CPU a source, times the pages, is the figure for
  every source. Anchor placement is not in it (see docs/benchmarks.md: it costs tens of
  milliseconds a source and is what the 15 ms a page target is about).
* ``pair_table``: every page's pairs, as scoring reads them (a
  :class:`~linkpipe.lib.links.pair_table.PairTable`): its top-k embedding neighbours above the
  minimum similarity with their TF-IDF cosine, the linked ones flagged.
* ``scoring``: :func:`linkpipe.lib.links.site_scoring.score_site` on that table: the weights
  fitted on the labelled pairs, every pair's score, caps, calibration and, for the pairs kept,
  the reasons (no placements: the generated pages have none).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.candidates import graph_signals
from linkpipe.lib.links.pair_table import EVIDENCE, PairTable
from linkpipe.lib.links.retrieval import CandidateLimits, retrieve
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring_config import PageFacts
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.links.site_models import SiteModels, SitePage
from linkpipe.lib.text.tfidf import row_cosines
from linkpipe.lib.vectors.ann import AnnIndex

SOURCE_BATCH = 256  # as the candidate stage searches
QUERY_BATCH = 20_000  # pages whose pairs are made at once


@dataclass
class GeneratedSite:
    """The generated pages, their vectors, links and site models."""

    urls: list[str]
    titles: list[str]
    texts: list[str]
    vectors: NDArray[np.float32]
    links: dict[str, set[str]]  # source -> targets linked in content
    models: SiteModels

    def context(self) -> SiteContext:
        """The site as a candidate shard sees it (the stored models, not refitted)."""
        pages = [
            SitePage(u, t, t, u.rsplit("/", 1)[-1])
            for u, t in zip(self.urls, self.titles, strict=True)
        ]
        return SiteContext(pages, self.vectors, self.links, {}, {}, prebuilt=self.models)


def candidates_sample(
    site: GeneratedSite, context: SiteContext, ann: AnnIndex, sample: int, seed: int
) -> dict[str, Any]:
    """Retrieval and evidence of ``sample`` sources (spread over the site), batch by batch."""
    rng = np.random.default_rng([seed, 11])
    rows = np.sort(rng.choice(len(site.urls), size=min(sample, len(site.urls)), replace=False))
    limits = CandidateLimits()
    pairs = named = 0
    for start in range(0, len(rows), SOURCE_BATCH):
        batch = [site.urls[i] for i in rows[start : start + SOURCE_BATCH].tolist()]
        texts = {
            u: SourceText(site.texts[i], [(0, 0, len(site.texts[i]), "p")])
            for u, i in zip(batch, rows[start : start + SOURCE_BATCH].tolist(), strict=True)
        }
        for found in retrieve(context, batch, texts, ann, limits):
            targets = [*found.neighbours, *found.linked]
            context.lexical_sims(found.source, targets)
            for target in targets:
                graph_signals(context, found.source, target)
            pairs += len(targets)
            named += len(found.named)
    return {"sources": len(rows), "pairs": pairs, "names_found": named}


def pair_table(site: GeneratedSite, sims: NDArray[np.float32], ids: NDArray[np.int64]) -> PairTable:
    """Every page's embedding neighbours (``sims``, ``ids``: the ANN's top-k of each page, in
    page order) above the candidate minimum with their TF-IDF cosine, the pairs the page
    links flagged, as a :class:`PairTable`."""
    order = sorted(range(len(site.urls)), key=site.urls.__getitem__)
    code = np.empty(len(order), dtype=np.int32)
    code[order] = np.arange(len(order), dtype=np.int32)
    tfidf = site.models.tfidf
    tfidf_row = np.array([tfidf.row_of.get(u, -1) for u in site.urls], dtype=np.int64)
    parts: list[tuple[NDArray[Any], ...]] = []
    minimum, links = CandidateLimits().min_similarity, _link_keys(site)
    for start in range(0, len(ids), QUERY_BATCH):
        stop = min(len(ids), start + QUERY_BATCH)
        src = np.repeat(np.arange(start, stop), ids.shape[1])
        tgt, sim = ids[start:stop].ravel(), sims[start:stop].ravel()
        keep = (tgt >= 0) & (tgt != src) & (sim >= minimum)
        src, tgt, sim = src[keep], tgt[keep], sim[keep].astype(np.float64)
        lexical = _lexical(tfidf.matrix, tfidf_row, src, tgt)
        linked = np.isin(src * len(site.urls) + tgt, links)
        parts.append((src, tgt, sim, lexical, linked))
    src, tgt, sim, lexical, linked = (np.concatenate(p) for p in zip(*parts, strict=True))
    evidence = np.zeros((len(src), len(EVIDENCE)), dtype=np.float64)
    evidence[:, 0], evidence[:, 1] = sim, lexical
    urls = [site.urls[i] for i in order]
    return PairTable(
        urls, code[src], code[tgt], evidence, linked, np.arange(len(src)), _reader(urls)
    )


def _link_keys(site: GeneratedSite) -> NDArray[np.int64]:
    """Each content link as source row x pages + target row."""
    row = {u: i for i, u in enumerate(site.urls)}
    return np.array(
        [row[s] * len(site.urls) + row[t] for s, ts in site.links.items() for t in ts],
        dtype=np.int64,
    )


def _lexical(
    matrix: Any, rows: NDArray[np.int64], src: NDArray[np.int64], tgt: NDArray[np.int64]
) -> NDArray[np.float64]:
    """The TF-IDF cosine of each pair, one sparse product per source."""
    out = np.zeros(len(src), dtype=np.float64)
    bounds = np.flatnonzero(np.diff(src)) + 1
    for a, b in zip([0, *bounds.tolist()], [*bounds.tolist(), len(src)], strict=True):
        if a < b and rows[src[a]] >= 0:
            out[a:b] = row_cosines(matrix, int(rows[src[a]]), rows[tgt[a:b]].tolist())
    return out


def _reader(urls: list[str]) -> Any:
    """Full rows of the pairs scoring keeps, made from the table (no placements), a batch
    at a time."""

    def read(
        table: PairTable, index: NDArray[np.int64], size: int
    ) -> Iterator[list[CandidatePair]]:
        for start in range(0, len(index), size):
            yield [_row(table, urls, i) for i in index[start : start + size].tolist()]

    return read


def _row(table: PairTable, urls: list[str], i: int) -> CandidatePair:
    """The candidate row of the ``i``-th pair of the table."""
    sem, lex, title, mention, cocitation, shared = table.evidence[i].tolist()
    source, target = urls[int(table.source[i])], urls[int(table.target[i])]
    return CandidatePair(
        source, target, sem, lex, title, mention, None, None, None, cocitation, shared,
        bool(table.linked[i]), False,
    )  # fmt: skip


def page_facts(site: GeneratedSite, seed: int) -> dict[str, PageFacts]:
    """Facts scoring reads of every page: content inlinks from the links, depth and link
    score drawn, a guide in ten and a product in twenty (the direction factors apply)."""
    rng = np.random.default_rng([seed, 12])
    inlinks: dict[str, int] = {}
    for targets in site.links.values():
        for t in targets:
            inlinks[t] = inlinks.get(t, 0) + 1
    kinds = rng.choice(["page", "guide", "product"], size=len(site.urls), p=[0.85, 0.1, 0.05])
    depth = rng.integers(1, 7, size=len(site.urls))
    score = rng.uniform(0, 100, size=len(site.urls))
    return {
        u: PageFacts(
            title=site.titles[i],
            page_type=str(kinds[i]),
            content_inlinks=inlinks.get(u, 0),
            click_depth=int(depth[i]),
            link_score=float(score[i]),
            is_orphan=inlinks.get(u, 0) == 0,
            is_deep=int(depth[i]) > 3,
        )  # fmt: skip
        for i, u in enumerate(site.urls)
    }
