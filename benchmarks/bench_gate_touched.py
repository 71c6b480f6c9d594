"""How many of a refresh shard's sources read what they read in the previous crawl once the
touched pages are taken out: the sources a gate that compares reads *but for touched pages*
could handle pair by pair instead of sending them the whole way (see ``docs/status.md``,
eighth session, item 1).

    python benchmarks/bench_gate_touched.py /tmp/b10n7/db-10000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited --shard 0

For the first chunk of the shard's sources, both crawls are searched as the candidate step
searches them (batches of ``SOURCE_BATCH``), and what the gate reads of each source is
compared: the embedding hits up to the k-th unlinked one (URL, whether it reaches the minimum
similarity, the similarity), whether all hits were read, the linked TF-IDF neighbours, each
named target's best name and the targets the TF-IDF list and the names add. Each source is
counted once: reads the same (the gate lets it through today, or stops it for touched
targets alone); the same with the touched pages taken out; the same but for the last hits
(a touched page entering or leaving the hits, or the first unlinked TF-IDF neighbours, pushes
one untouched page out or lets one in);
or what differs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench_lexical_reuse import refresh_parser, report

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.gate_reads import name_keys, named_by_keys, read_depth
from linkpipe.lib.links.retrieval import (
    MIN_MENTION_PROBABILITY,
    CandidateLimits,
    other_targets,
    search,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.stages.ann_index import load_ann_index
from linkpipe.lib.stages.candidate_context import load_site_context
from linkpipe.lib.stages.candidate_pairs import DEFAULT_K, SOURCE_BATCH, shard_inputs
from linkpipe.lib.stages.candidate_previous import page_digests, site_changes
from linkpipe.lib.stages.source_texts import shard_texts
from linkpipe.lib.storage import open_db
from linkpipe.lib.vectors.ann import AnnIndex
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

Reads = tuple[list[Any], bool, list[str], list[Any], list[list[str]]]
PARTS = (
    "hits", "all hits read", "linked TF-IDF neighbours", "best names", "added TF-IDF neighbours",
    "added names",
)  # fmt: skip


@dataclass(frozen=True)
class Crawl:
    """What the candidate step reads of a crawl's shard: site context, ANN index, and the
    texts of the first chunk of its sources."""

    site: SiteContext
    ann: AnnIndex
    texts: dict[str, SourceText]

    @classmethod
    def load(cls, db: Path, crawl: str, shard: int, model: str) -> Crawl:
        inputs = shard_inputs(db, crawl, shard, model, DEFAULT_K)[1]
        texts = next(iter(shard_texts(db, crawl, shard).chunks()), {})
        return cls(load_site_context(db, crawl, inputs), load_ann_index(db, crawl), texts)


def crawl_reads(crawl: Crawl, only: set[str]) -> dict[str, Reads]:
    """What the gate reads of each source of the crawl's chunk that is in ``only``."""
    limits = CandidateLimits(k=DEFAULT_K)
    site, ann, texts = crawl.site, crawl.ann, crawl.texts
    sources = sorted(s for s in texts if s in site.row_of and s in only)
    out: dict[str, Reads] = {}
    for first in range(0, len(sources), SOURCE_BATCH):
        found = search(site, sources[first : first + SOURCE_BATCH], ann, limits)
        for qi, source in enumerate(found.sources):
            sims, ids = found.hits(qi)
            depth = read_depth(site, source, ann, sims, ids, limits)
            hits = [
                (ann.urls[i] if i >= 0 else "", sim >= limits.min_similarity, sim)
                for i, sim in zip(ids[:depth].tolist(), sims[:depth].tolist(), strict=True)
            ]
            named = named_by_keys(site, source, name_keys(site, texts[source]))
            linked = site.content_links.get(source, set())
            best = sorted(
                (t, m.key, m.phrase, m.kind, m.probability >= MIN_MENTION_PROBABILITY)
                for t, m in named.items()
            )
            lexical = found.lexical[qi]
            added = other_targets(site, source, lexical, dict(named), limits)
            unlinked = [t for t in lexical if t != source and t not in linked]
            cut = len(unlinked[: limits.k_lexical])  # the TF-IDF ones, then the names
            out[source] = (
                hits, depth == len(ids), [t for t in lexical if t in linked], best,
                [added[:cut], added[cut:]],
            )  # fmt: skip
    return out


def without(reads: Reads, touched: set[str]) -> list[list[Any]]:
    """The reads but the touched pages (the flag of all hits read left out)."""
    hits, _, lexical, best, (extra, names) = reads
    return [
        [h for h in hits if h[0] not in touched],
        [t for t in lexical if t not in touched],
        [b for b in best if b[0] not in touched],
        [t for t in extra if t not in touched],
        [t for t in names if t not in touched],
    ]


def classify(before: Reads, now: Reads, touched: set[str]) -> str:
    """What a source's reads say (see the module)."""
    if before == now:
        return "reads the same"
    a, b = without(before, touched), without(now, touched)
    if a == b:
        return "the same but the touched pages"
    shifted = _prefixes(a[0], b[0]) and _prefixes(a[3], b[3])  # the hits, TF-IDF neighbours
    if shifted and (a[1], a[2], a[4]) == (b[1], b[2], b[4]):
        return "the same but the touched pages and the last hits or TF-IDF neighbours"
    names = (PARTS[0], *PARTS[2:])
    return "differs: " + " + ".join(n for n, x, y in zip(names, a, b, strict=True) if x != y)


def _prefixes(a: list[Any], b: list[Any]) -> bool:
    """Whether the shorter list is the start of the longer one."""
    shortest = min(len(a), len(b))
    return a[:shortest] == b[:shortest]


def measure(db: Path, previous: str, crawl: str, shard: int, model: str) -> dict[str, Any]:
    """The sources of the shard's first chunk by what their reads say."""
    old, new = Crawl.load(db, previous, shard, model), Crawl.load(db, crawl, shard, model)
    with open_db(db) as con:
        pages, earlier = page_digests(con, crawl), page_digests(con, previous)
        config = new.site.mentions.config
        changes = site_changes(con, crawl, previous, pages, earlier, config)
    touched = set(changes.touched)
    both = set(pages) & set(earlier)
    before, now = crawl_reads(old, both), crawl_reads(new, both)
    counts: Counter[str] = Counter()
    for source in sorted(before.keys() & now.keys()):
        if source in touched or source in changes.relinked:
            counts["the source touched or relinked"] += 1
        else:
            counts[classify(before[source], now[source], touched)] += 1
    return {"sources": sum(counts.values()), "touched_pages": len(touched), **dict(counts)}


def main() -> None:
    parser = refresh_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args()
    report(measure(args.db, args.previous, args.crawl, args.shard, args.model), args.json)


if __name__ == "__main__":
    main()
