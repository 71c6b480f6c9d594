"""Why a refresh's sources still search their TF-IDF neighbours, and whether every list the
rule keeps is the one the index finds (``kept_lexical``: changed and boundary pages, pages
entering below the floor, the cut kept as a range).

    python benchmarks/bench_lexical_patch.py /tmp/b10/db-10000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited

For each shard's sources with a stored list in the previous crawl (``candidate_sources``),
unchanged since, the verdict of ``kept_lexical.kept_lists`` and, for a source it sends to
search, the first reason in this order: a lookup term whose champion list cannot be told
(``unclear``); a changed page above the floor (``a changed page near the list``: its cosine
may put it in); a page that leaves the pages ordered or gains a partial sum of an uncut
query (``a page leaves the ordered``); a page of the list with a partial sum not above an
entering page's (``a member may be pushed out``). Each kept list is compared with the one the
refresh stored for the source (found by searching, or kept by the code that ran it).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
import polars as pl

from linkpipe.lib.links.champion_lists import MARGIN, ChampionRows, champion_rows
from linkpipe.lib.links.kept_lexical import kept_lists, stored_frame
from linkpipe.lib.links.list_sides import sides
from linkpipe.lib.links.site_models import SiteModels
from linkpipe.lib.stages.candidate_previous import changed_pages, changed_rows, page_digests
from linkpipe.lib.stages.site_models import load_site_models
from linkpipe.lib.storage import fetch_frame, open_db
from linkpipe.lib.text.lexical_index import heaviest

SHARDS = 4


def reasons(stored: pl.DataFrame, models: SiteModels, champions: ChampionRows) -> list[str]:
    """The first reason each source of ``stored`` may not keep its list ('' when none: see
    the module)."""
    index, row_of = models.index, models.tfidf.row_of
    rows = index.matrix[[row_of[s] for s in stored["source_url"].to_list()]]
    lookups = heaviest(rows, index.settings.query_terms)
    cut = stored["lexical_cut"].fill_null(np.inf).to_numpy()
    high = stored["high"].fill_null(np.inf).to_numpy()
    at = sides(rows, lookups, champions, cut, high, stored["lexical_floor"].to_numpy())
    unclear = np.zeros(len(cut), bool)
    if len(champions.unclear):
        unclear = np.asarray(lookups[:, champions.unclear].getnnz(axis=1) > 0)
    out: list[str] = []
    for i in range(len(cut)):
        settled = ((at.out[i] | at.inside[i]) & at.below[i]) | at.entering[i]
        if unclear[i]:
            out.append("unclear")
        elif (~at.below[i] & ~at.entering[i]).any():
            out.append("a changed page near the list")
        elif not settled.all():
            out.append("a page leaves the ordered")
        else:
            out.append("")
    return out


def measure(db: Path, previous: str, crawl: str) -> dict[str, object]:
    """The verdicts and checks over every shard of the refresh."""
    models = load_site_models(db, crawl)
    with open_db(db) as con:
        query = "SELECT any_value(search_salt) FROM candidate_sources WHERE crawl_id = ?"
        salt = (con.execute(query, [crawl]).fetchone() or [None])[0]
        moved = changed_pages(page_digests(con, crawl), page_digests(con, previous))
        changed = changed_rows(con, previous, moved, models.index, models.tfidf.row_of)
        frames = [
            (
                fetch_frame(con, "read/select_shard_kept_hits", [previous, shard, salt]),
                fetch_frame(con, "read/select_shard_kept_hits", [crawl, shard, salt]),
            )
            for shard in range(SHARDS)
        ]
    champions = champion_rows(models.index, changed)
    verdicts: Counter[str] = Counter()
    for before, after in frames:
        unchanged = before.filter(~pl.col("source_url").is_in(list(moved)))
        stored = stored_frame(unchanged, models.tfidf.row_of)  # as kept_lists reads them
        found = {s: list(h or []) for s, h in after.select("source_url", "lexical_hits").rows()}
        kept = kept_lists(stored, models.index, models.tfidf.row_of, changed)
        why_searched = reasons(stored, models, champions)
        for source, why in zip(stored["source_url"].to_list(), why_searched, strict=True):
            if source in kept:
                same = list(kept[source].urls) == found.get(source)
                verdicts["kept, equal to the refresh's" if same else "kept, DIFFERS"] += 1
            else:
                verdicts[f"searched: {why or 'a member may be pushed out'}"] += 1
    return {
        "changed_pages": len(moved),
        "boundary_pages": champions.old.shape[0] - champions.changed,
        "unclear_terms": len(champions.unclear),
        "margin": MARGIN,
        **dict(sorted(verdicts.items())),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--previous", required=True)
    parser.add_argument("--crawl", required=True)
    args = parser.parse_args()
    print(json.dumps(measure(args.db, args.previous, args.crawl), indent=1))


if __name__ == "__main__":
    main()
