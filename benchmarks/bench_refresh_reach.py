"""How many of a refresh's unedited sources a changed page can reach: the sources whose
searches a refresh could skip (see ``docs/status.md``, ninth session, item 1).

    python benchmarks/bench_refresh_reach.py /tmp/b30/db-30000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited

Three shares of the unedited sources (TF-IDF row and vector the same in both crawls):

* ``champion_lists``: those with a lexical query term (one of the index's ``query_terms``
  heaviest of the source) whose champion list holds a changed page, in either crawl: the
  sources an index whose lists were kept between crawls would search again;
* ``embedding``: those whose search depth (``k + 1`` + its content links, as retrieval
  searches; it reads up to its k-th unlinked hit, no deeper) a changed page's old or new
  vector reaches, exactly (its cosine at least the source's last hit's);
* ``tfidf``: the same for the TF-IDF list (``k_lexical + 1`` + its content links deep),
  with the exact cosines of the changed pages' old and new rows;
* ``either_index``: those reached by either (a source no change reaches in either index
  finds what it found: its search could be skipped).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from bench_lexical_reuse import report
from numpy.typing import NDArray
from scipy import sparse

from linkpipe.lib.links.retrieval import MAX_LINKED_DEPTH, CandidateLimits
from linkpipe.lib.links.site_models import SiteModels
from linkpipe.lib.stages.site_models import load_site_models
from linkpipe.lib.storage import fetch_frame, open_db
from linkpipe.lib.text.lexical_index import heaviest

CHUNK = 1_000  # sources whose similarities with every page are held at once


def _vectors(db: Path, crawl: str) -> dict[str, NDArray[np.float32]]:
    """Each page's embedding in the crawl."""
    with open_db(db) as con:
        rows = con.execute(
            "SELECT url, embedding FROM page_embeddings WHERE crawl_id = ?", [crawl]
        ).fetchall()
    return {url: np.asarray(vector, np.float32) for url, vector in rows}


def _links(db: Path, crawl: str) -> dict[str, int]:
    """How many pages each source links in its content."""
    with open_db(db) as con:
        edges = fetch_frame(con, "read/select_content_links", [crawl])
    counts = edges.unique(["source_url", "resolved_url"]).group_by("source_url").len()
    return dict(zip(counts["source_url"].to_list(), counts["len"].to_list(), strict=True))


def _same_row(old: SiteModels, new: SiteModels, url: str) -> bool:
    """Whether the page's TF-IDF row is the same in both crawls."""
    a, b = old.tfidf.matrix[old.tfidf.row_of[url]], new.tfidf.matrix[new.tfidf.row_of[url]]
    return bool(np.array_equal(a.indices, b.indices) and np.array_equal(a.data, b.data))


def _reached(
    queries: Any, everyone: Any, changed: Any, depths: NDArray[np.int64]
) -> NDArray[np.bool_]:
    """Whether a changed row reaches each query row: its similarity at least that of the
    query's ``depth``-th best row of ``everyone`` (itself the first), dense or sparse rows."""
    found = []
    for start in range(0, queries.shape[0], CHUNK):
        q = queries[start : start + CHUNK]
        sims, best = q @ everyone.T, q @ changed.T
        sims = sims.toarray() if sparse.issparse(sims) else sims
        best = best.toarray() if sparse.issparse(best) else best
        last = np.minimum(depths[start : start + CHUNK], sims.shape[1]) - 1
        kth = -np.partition(-sims, np.unique(last), axis=1)[np.arange(len(last)), last]
        found.append(best.max(axis=1) >= kth - 1e-6)
    return np.concatenate(found) if found else np.zeros(0, bool)


def measure(db: Path, previous: str, crawl: str) -> dict[str, Any]:
    """The three shares (see the module)."""
    old, new = load_site_models(db, previous), load_site_models(db, crawl)
    if old.tfidf.matrix.shape[1] != new.tfidf.matrix.shape[1]:
        raise SystemExit("the TF-IDF statistics were refitted: every source searches again")
    v_old, v_new = _vectors(db, previous), _vectors(db, crawl)
    urls = sorted(set(v_old) & set(v_new) & set(old.tfidf.row_of) & set(new.tfidf.row_of))
    changed = [
        u for u in urls if not _same_row(old, new, u) or not np.array_equal(v_old[u], v_new[u])
    ]
    unedited = sorted(set(urls) - set(changed))
    links, limits = _links(db, crawl), CandidateLimits()
    extra = np.array([min(links.get(u, 0), MAX_LINKED_DEPTH) for u in unedited], np.int64)
    rows = [new.tfidf.row_of[u] for u in unedited]
    settings = new.index.settings

    def champions(models: SiteModels) -> sparse.csr_matrix:  # pages x terms
        return heaviest(models.tfidf.matrix.T.tocsr(), settings.posting_cap).T.tocsr()

    dirty = np.zeros(new.tfidf.matrix.shape[1], bool)
    for models, lists in ((old, champions(old)), (new, champions(new))):
        for url in changed:
            dirty[lists[models.tfidf.row_of[url]].indices] = True
    query = heaviest(new.tfidf.matrix[rows], settings.query_terms)
    listed = sum(bool(dirty[query[i].indices].any()) for i in range(query.shape[0]))
    vectors = np.stack([v_new[u] for u in urls])
    moved = np.stack([v_old[u] for u in changed] + [v_new[u] for u in changed])
    queries = np.stack([v_new[u] for u in unedited])
    embedding = _reached(queries, vectors, moved, limits.k + 1 + extra)
    tfidf_changed = sparse.vstack(
        [new.tfidf.matrix[[new.tfidf.row_of[u] for u in changed]],
         old.tfidf.matrix[[old.tfidf.row_of[u] for u in changed]]]
    ).tocsr()  # fmt: skip
    tfidf = _reached(
        new.tfidf.matrix[rows], new.tfidf.matrix, tfidf_changed, limits.k_lexical + 1 + extra
    )
    share = {"champion_lists": listed, "embedding": int(embedding.sum()), "tfidf": int(tfidf.sum())}
    share["either_index"] = int((embedding | tfidf).sum())
    return {
        "pages": len(urls),
        "changed": len(changed),
        "unedited": len(unedited),
        "dirty_terms": int(dirty.sum()),
        "terms": int(len(dirty)),
        "reached": share,
        "share": {k: round(v / max(1, len(unedited)), 4) for k, v in share.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--previous", required=True, help="the previous crawl's id")
    parser.add_argument("--crawl", required=True, help="the refresh's crawl id")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report(measure(args.db, args.previous, args.crawl), args.json)


if __name__ == "__main__":
    main()
