"""Why a refresh's candidate shard queried the lexical index again: each stored TF-IDF list it
did not keep, sorted by the kinds of its unsettled pages (``list_sides.sides``).

    python benchmarks/bench_kept_lists_why.py /tmp/b30/db-30000-graph/bench.duckdb \
        --crawl graph-refresh-edited --shard 0 --work /tmp/why/bench.duckdb

The shard's candidate step runs on a copy of the database (the original is not touched) with
``kept_lists`` wrapped to keep its inputs; the lists it did not keep are then sorted: pages
below the cut both times, ordered both times, entering, leaving (each with its cosine at or
above the floor where that unsettles it), in the cut's margin or range, and the lists moved
only by changed pages leaving below the floor, by how many leave.
"""

from __future__ import annotations

import argparse
import collections
import shutil
from pathlib import Path
from typing import Any

import numpy as np

import linkpipe.lib.stages.kept_searches as kept_searches
from linkpipe.lib.links import kept_lexical as kl
from linkpipe.lib.links import list_sides
from linkpipe.lib.links.champion_lists import ChampionRows, champion_rows
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.text.lexical_index import heaviest
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

CHUNK = 256  # sources whose sides are computed at a time
WRAPPED = "kept_lists"  # the name kept_searches calls


def captured_inputs(db: Path, work: Path, crawl: str, shard: int) -> tuple[Any, ...]:
    """Run the shard's candidate step on a copy (``work``); ``kept_lists``' arguments."""
    shutil.copyfile(db, work)
    seen: list[tuple[Any, ...]] = []
    real = kl.kept_lists  # what kept_searches imported

    def keeping(*args: Any) -> Any:
        seen.append(args)
        return real(*args)

    setattr(kept_searches, WRAPPED, keeping)
    try:
        materialize_candidate_pairs(work, crawl, shard, DEFAULT_MODEL)
    finally:
        setattr(kept_searches, WRAPPED, real)
    if not seen:
        raise SystemExit(f"{crawl} shard {shard} kept no search (no previous crawl's lists?)")
    return seen[0]


def _kind(at: list_sides.Sides, r: int, p: int, champions: ChampionRows) -> str:
    """What unsettles page ``p`` (a column) for source ``r`` (a row) of a chunk's sides."""
    if at.out[r, p]:
        kind = "below the cut both times, cosine >= floor"
    elif at.inside[r, p]:
        kind = "ordered both times, cosine >= floor"
    elif at.entered[r, p]:
        kind = "entering, cosine >= floor"
    elif at.left[r, p]:
        kind = "leaving" if at.below[r, p] else "leaving, cosine >= floor"
    else:
        kind = "in the cut's margin or range"
    return kind + (" (boundary page)" if p >= champions.changed else "")


def sorted_lists(inputs: tuple[Any, ...]) -> tuple[int, int, collections.Counter[str]]:
    """(stored lists, kept, the unkept ones counted by the kinds of their unsettled pages)."""
    stored, index, row_of, changed = inputs
    kept = kl.kept_lists(stored, index, row_of, changed)
    frame = kl.stored_frame(stored, row_of)
    sources = frame["source_url"].to_list()
    rows = index.matrix[[row_of[s] for s in sources]]
    lookups = heaviest(rows, index.settings.query_terms)
    champions = champion_rows(index, changed)
    cut = frame["lexical_cut"].fill_null(np.inf).to_numpy()
    high = frame["high"].fill_null(np.inf).to_numpy()
    floor = frame["lexical_floor"].to_numpy()
    kinds: collections.Counter[str] = collections.Counter()
    for lo in range(0, len(sources), CHUNK):
        part = slice(lo, lo + CHUNK)
        at = list_sides.sides(
            rows[part], lookups[part], champions, cut[part], high[part], floor[part]
        )
        settled = ((at.out | at.inside) & at.below) | at.entering
        for r in range(settled.shape[0]):
            if sources[lo + r] in kept:
                continue
            pages = np.flatnonzero(~settled[r]).tolist()
            found = {_kind(at, r, p, champions) for p in pages}
            if found == {"leaving"}:
                found = {f"only leaving: {min(len(pages), 4)} page(s)"}
            kinds[" & ".join(sorted(found)) or "settled: a member check, patch or next failed"] += 1
    return len(sources), len(kept), kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--crawl", required=True)
    parser.add_argument("--shard", type=int, default=0)
    parser.add_argument("--work", type=Path, required=True, help="the copy the step runs on")
    args = parser.parse_args()
    inputs = captured_inputs(args.db, args.work, args.crawl, args.shard)
    stored, kept, kinds = sorted_lists(inputs)
    print(f"{args.crawl} shard {args.shard}: {stored} lists stored, {kept} kept")
    for kind, count in kinds.most_common():
        print(f"{count:7d}  {kind}")


if __name__ == "__main__":
    main()
