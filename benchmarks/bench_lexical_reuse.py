"""Could a refresh keep a source's lexical neighbours without searching again? Measured on a
stored refresh and its previous crawl, for the sources of one shard whose TF-IDF row is the
same in both.

    python benchmarks/bench_lexical_reuse.py /tmp/b10n7/db-10000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited --shard 0

With the TF-IDF statistics kept, an unedited source's query is the same; only pages whose
partial sum for it moved (edited pages, and pages an edited one pushed into or out of a
champion list) can change what it finds. The rule tried: the source keeps its neighbours when
every page whose partial sum moved stays strictly below the rerank cut (the ``rerank``-th
partial sum) in both crawls, or strictly above it in both without reaching the k-th exact
cosine of the previous result (a page never in it). Both crawls' indexes are searched in full
here, to count how many sources the rule lets through and to check that each of them found
the same neighbours. The rule needs only what could be stored with each source (its cut and
k-th cosine) and the moved pages' partial sums; this benchmark does not build it.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from linkpipe.lib.links.site_models import SiteModels
from linkpipe.lib.stages.site_models import load_site_models
from linkpipe.lib.stages.source_texts import shard_texts
from linkpipe.lib.text.lexical_index import heaviest

K = 11  # neighbours a source reads: k_lexical + 1, for a source that links nothing


def search_facts(models: SiteModels, url: str) -> tuple[dict[str, float], float, list[str]]:
    """(each reached page's partial sum, the rerank cut, the first ``K`` neighbours) of one
    source, as the crawl's lexical index finds them."""
    tfidf, index = models.tfidf, models.index
    row = tfidf.row_of[url]
    partial = index.postings.partial_sums(heaviest(tfidf.matrix[[row]], index.settings.query_terms))
    pages = [tfidf.urls[r] for r in index.postings.rows[partial.indices].tolist()]
    ranked = np.sort(partial.data)[::-1]
    keep = max(K, index.settings.rerank)
    cut = float(ranked[keep - 1]) if len(ranked) >= keep else -1.0
    found = [tfidf.urls[r] for r in index.neighbours([row], K)[0].tolist()]
    return dict(zip(pages, partial.data.tolist(), strict=True)), cut, found


def cosine(models: SiteModels, a: str, b: str) -> float:
    """The exact TF-IDF cosine of two pages of the crawl."""
    matrix, row_of = models.tfidf.matrix, models.tfidf.row_of
    return float((matrix[[row_of[a]]] @ matrix[[row_of[b]]].T).toarray()[0, 0])


def verdict(old: SiteModels, new: SiteModels, url: str) -> tuple[str, bool]:
    """(what the rule says of the source, whether both crawls found the same neighbours)."""
    before, cut, found_before = search_facts(old, url)
    after, cut_after, found_after = search_facts(new, url)
    same = found_before == found_after
    kth = cosine(old, url, found_before[-1]) if len(found_before) >= K else -1.0
    for page in set(before) | set(after):
        a, b = before.get(page, 0.0), after.get(page, 0.0)
        if a == b or (a < cut and b < cut):
            continue
        if not (a > cut and b > cut):
            return "a page crosses the cut", same
        if page in found_before or page not in new.tfidf.row_of or cosine(new, url, page) >= kth:
            return "a page above the cut is or may be a neighbour", same
    assert cut == cut_after, "no page crossed, yet the cut moved"
    return "kept", same


def same_row(old: SiteModels, new: SiteModels, url: str) -> bool:
    """Whether the page's TF-IDF row is the same in both crawls."""
    if url not in old.tfidf.row_of or url not in new.tfidf.row_of:
        return False
    a, b = old.tfidf.matrix[old.tfidf.row_of[url]], new.tfidf.matrix[new.tfidf.row_of[url]]
    return bool(np.array_equal(a.indices, b.indices) and np.array_equal(a.data, b.data))


def measure(db: Path, previous: str, crawl: str, shard: int) -> dict[str, Any]:
    """The rule's verdicts over the first chunk of the shard's sources."""
    old, new = load_site_models(db, previous), load_site_models(db, crawl)
    if old.tfidf.matrix.shape[1] != new.tfidf.matrix.shape[1]:
        raise SystemExit("the TF-IDF statistics were refitted: every source searches again")
    if old.index.settings != new.index.settings:
        raise SystemExit("the lexical index was widened differently: every source searches")
    sources = sorted(next(iter(shard_texts(db, crawl, shard).chunks()), {}))
    verdicts: Counter[str] = Counter()
    same, wrong = 0, 0
    for url in sources:
        if not same_row(old, new, url):
            verdicts["edited (or no row): searches"] += 1
            continue
        said, alike = verdict(old, new, url)
        verdicts[said] += 1
        same += alike
        wrong += said == "kept" and not alike
    unedited = len(sources) - verdicts["edited (or no row): searches"]
    return {
        "sources": len(sources),
        "unedited": unedited,
        "verdicts": dict(verdicts),
        "kept_share_of_unedited": round(verdicts["kept"] / max(1, unedited), 4),
        "same_neighbours_share_of_unedited": round(same / max(1, unedited), 4),
        "kept_but_different": wrong,
    }


def refresh_parser(description: str) -> argparse.ArgumentParser:
    """The arguments of a benchmark of one shard of a stored refresh and its previous crawl."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("db", type=Path)
    parser.add_argument("--previous", required=True, help="the previous crawl's id")
    parser.add_argument("--crawl", required=True, help="the refresh's crawl id")
    parser.add_argument("--shard", type=int, default=0)
    parser.add_argument("--json", type=Path)
    return parser


def report(figures: dict[str, Any], path: Path | None) -> None:
    """Print the figures, and write them to ``path`` when given."""
    print(json.dumps(figures, indent=1))
    if path:
        path.write_text(json.dumps(figures, indent=1))


def main() -> None:
    args = refresh_parser(__doc__.split("\n\n")[0]).parse_args()
    report(measure(args.db, args.previous, args.crawl, args.shard), args.json)


if __name__ == "__main__":
    main()
