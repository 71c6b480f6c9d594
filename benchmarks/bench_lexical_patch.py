"""Why a refresh's sources search their TF-IDF neighbours again, and how many a patch of the
stored list would keep (a rule tried, not built).

    python benchmarks/bench_lexical_patch.py /tmp/b10/db-10000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited

For each shard's sources with a stored list (``candidate_sources``), the reason
``kept_lexical.kept_lists`` sends it to search again: a lookup term whose champion list a
changed page may have entered or left ("moved terms"), a changed page whose partial sum
crosses the stored rerank cut, or a changed page at or above the list's floor. Of the last
kind, a source is *patchable* when every changed page stays on one side of the cut, and the
list's unchanged members with the changed pages whose new cosine is above the floor still
fill it: the new list is then those pages by exact cosine. Each patched list is compared with
the one the refresh found by searching.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl
from scipy import sparse

from linkpipe.lib.links.kept_lexical import MARGIN, ChampionRows, ChangedRows, sides
from linkpipe.lib.links.site_models import SiteModels
from linkpipe.lib.stages.candidate_previous import changed_pages, changed_rows, page_digests
from linkpipe.lib.stages.site_models import load_site_models
from linkpipe.lib.storage import fetch_frame, open_db
from linkpipe.lib.text.lexical_index import heaviest

SHARDS = 4


def shard_verdicts(
    stored: pl.DataFrame, found: dict[str, list[str]], models: SiteModels,
    changed: ChangedRows, champions: ChampionRows, urls: list[str],
) -> Counter[str]:  # fmt: skip
    """The verdict on each source of one shard's stored lists (see the module)."""
    index, row_of = models.index, models.tfidf.row_of
    sources = stored["source_url"].to_list()
    rows = index.matrix[[row_of[s] for s in sources]]
    lookups = heaviest(rows, index.settings.query_terms)
    cut = stored["lexical_cut"].fill_null(np.inf).to_numpy()
    floor = stored["lexical_floor"].to_numpy()
    moved = np.zeros(len(sources), bool)
    if len(champions.moved):
        moved = np.asarray(lookups[:, champions.moved].getnnz(axis=1) > 0)
    at = sides(rows, lookups, changed, champions, cut, floor)
    out, inside = at.out, at.inside
    kept = ((out | inside) & at.below).all(axis=1) & ~moved
    irrelevant = (out & np.isfinite(cut)[:, None]) | ((out | inside) & at.below)
    verdicts: Counter[str] = Counter()
    for i, source in enumerate(sources):
        if kept[i] or moved[i] or (~(out[i] | inside[i])).any():
            verdicts["kept" if kept[i] else "moved terms" if moved[i] else "crosses the cut"] += 1
            continue
        patched = _patched(
            models, source, list(stored["lexical_hits"][i]), float(floor[i]),
            [(urls[j], float(at.cosine[i, j])) for j in np.flatnonzero(~irrelevant[i])], set(urls),
        )  # fmt: skip
        if patched is None:
            verdicts["a member leaves"] += 1
        else:
            verdicts["patched, equal" if patched == found.get(source) else "patched, differs"] += 1
    return verdicts


def _patched(
    models: SiteModels, source: str, listed: list[str], floor: float,
    relevant: list[tuple[str, float]], changed: set[str],
) -> list[str] | None:  # fmt: skip
    """The source's new list from its stored one, or None when a member leaves unreplaced."""
    if any(floor - MARGIN <= cos <= floor + MARGIN for _, cos in relevant):
        return None
    entering = [(url, cos) for url, cos in relevant if cos > floor + MARGIN]
    keepers = [url for url in listed if url not in changed]
    if floor > 0 and len(keepers) + len(entering) < len(listed):
        return None
    matrix, row_of = models.tfidf.matrix, models.tfidf.row_of
    row = matrix[[row_of[source]]]
    members = sparse.vstack([matrix[[row_of[u]]] for u in keepers]) if keepers else None
    cosines = (members @ row.T).toarray()[:, 0].tolist() if members is not None else []
    ranked = sorted([*zip(keepers, cosines, strict=True), *entering], key=lambda t: -t[1])
    return [url for url, _ in ranked[: len(listed)]]


def measure(db: Path, previous: str, crawl: str) -> dict[str, object]:
    """The verdicts over every shard of the refresh."""
    models = load_site_models(db, crawl)
    with open_db(db) as con:
        salt = con.execute(
            "SELECT any_value(search_salt) FROM candidate_sources WHERE crawl_id = ?", [crawl]
        ).fetchone()[0]  # fmt: skip
        moved = changed_pages(page_digests(con, crawl), page_digests(con, previous))
        changed = changed_rows(con, previous, moved, models.index, models.tfidf.row_of)
        champions = changed.champions(models.index)
        verdicts: Counter[str] = Counter()
        for shard in range(SHARDS):
            before = fetch_frame(con, "read/select_shard_kept_hits", [previous, shard, salt])
            after = fetch_frame(con, "read/select_shard_kept_hits", [crawl, shard, salt])
            stored = before.filter(
                ~pl.col("source_url").is_in(list(moved))
                & pl.col("lexical_hits").is_not_null() & pl.col("lexical_floor").is_not_null()
                & pl.col("source_url").is_in(list(models.tfidf.row_of))
            )  # fmt: skip
            found = {s: list(h or []) for s, h in after.select("source_url", "lexical_hits").rows()}
            verdicts += shard_verdicts(stored, found, models, changed, champions, sorted(moved))
    return {"changed_pages": len(moved), "moved_terms": len(champions.moved), **verdicts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--previous", required=True)
    parser.add_argument("--crawl", required=True)
    args = parser.parse_args()
    print(json.dumps(measure(args.db, args.previous, args.crawl), indent=1))


if __name__ == "__main__":
    main()
