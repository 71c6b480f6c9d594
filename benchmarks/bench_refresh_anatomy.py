"""What a refresh recomputed and why, read from the rows two crawls stored: the sources whose
gate digest changed, the candidate pairs computed instead of copied, and the kept pairs whose
anchors were placed anew (see ``docs/status.md``, eleventh session).

    python benchmarks/bench_refresh_anatomy.py /tmp/b10/db-10000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited

Pages are *edited* when their stored HTML differs between the crawls (``content_hash``).

* ``sources``: every source with a gate row in both crawls, by whether its gate digest is
  the previous one (quiet or gated pair by pair) and, when not, what it read differently:
  its own page edited, the set of embedding hits it read, only their order (a touched page
  moved among them), the TF-IDF list the index found, or none of these (the names it read);
* ``pairs``: the crawl's candidate rows, copied (the pair digest is the previous one) or
  computed because the source or the target was edited, the pair is new, or else by what
  moved in its row (similarity, co-citation and shared neighbours, the name found);
* ``placements``: the crawl's kept pairs whose anchor key no earlier crawl placed, by
  whether the source or the target was edited or neither (a pair kept now, not before).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import duckdb

EDITED = """
    SELECT a.url FROM crawl_pages a JOIN crawl_pages b USING (url)
    WHERE a.crawl_id = $previous AND b.crawl_id = $crawl AND a.content_hash <> b.content_hash
"""

SOURCES = f"""
WITH edited AS ({EDITED}),
a AS (SELECT * FROM candidate_sources WHERE crawl_id = $previous),
b AS (SELECT * FROM candidate_sources WHERE crawl_id = $crawl)
SELECT CASE
    WHEN a.gate_digest = b.gate_digest THEN 'gate digest kept'
    WHEN a.source_url IN (SELECT url FROM edited) THEN 'own page edited'
    WHEN list_sort(a.gate_hits) <> list_sort(b.gate_hits) THEN 'embedding hits read differ'
    WHEN a.gate_hits <> b.gate_hits THEN 'only the order of the hits read differs'
    WHEN a.lexical_hits IS DISTINCT FROM b.lexical_hits THEN 'TF-IDF list differs'
    ELSE 'names read differ' END AS why,
  count(*) AS sources
FROM a JOIN b USING (source_url) GROUP BY ALL ORDER BY sources DESC
"""

PAIRS = f"""
WITH edited AS ({EDITED}),
a AS (SELECT source_url, target_url, pair_digest, semantic_sim, cocitation, shared_neighbors,
             mention_key FROM candidate_pairs WHERE crawl_id = $previous),
b AS (SELECT source_url, target_url, pair_digest, semantic_sim, cocitation, shared_neighbors,
             mention_key FROM candidate_pairs WHERE crawl_id = $crawl)
SELECT CASE
    WHEN a.pair_digest = b.pair_digest THEN 'copied'
    WHEN b.source_url IN (SELECT url FROM edited) THEN 'source edited'
    WHEN b.target_url IN (SELECT url FROM edited) THEN 'target edited'
    WHEN a.source_url IS NULL THEN 'new pair'
    WHEN a.semantic_sim IS DISTINCT FROM b.semantic_sim THEN 'similarity moved'
    WHEN a.cocitation IS DISTINCT FROM b.cocitation
      OR a.shared_neighbors IS DISTINCT FROM b.shared_neighbors THEN 'link signals moved'
    WHEN a.mention_key IS DISTINCT FROM b.mention_key THEN 'name moved'
    ELSE 'other' END AS why,
  count(*) AS pairs
FROM b LEFT JOIN a USING (source_url, target_url) GROUP BY ALL ORDER BY pairs DESC
"""

PLACEMENTS = f"""
WITH edited AS ({EDITED}),
kept AS (SELECT c.source_url, c.target_url, c.anchor_key
         FROM link_opportunities o JOIN candidate_pairs c USING (crawl_id, source_url, target_url)
         WHERE o.crawl_id = $crawl),
known AS (SELECT DISTINCT anchor_key FROM kept_placements WHERE crawl_id <> $crawl)
SELECT CASE
    WHEN anchor_key IN (SELECT anchor_key FROM known) THEN 'taken by key'
    WHEN source_url IN (SELECT url FROM edited) THEN 'source edited'
    WHEN target_url IN (SELECT url FROM edited) THEN 'target edited'
    ELSE 'kept now, not before' END AS why,
  count(*) AS pairs
FROM kept GROUP BY ALL ORDER BY pairs DESC
"""


def anatomy(db: Path, previous: str, crawl: str) -> dict[str, Any]:
    """The three tallies (see the module), each as {why: count}."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        params = {"previous": previous, "crawl": crawl}
        edited = con.execute(f"SELECT count(*) FROM ({EDITED})", params).fetchone()
        out: dict[str, Any] = {"edited_pages": edited[0] if edited else 0}
        for name, query in (("sources", SOURCES), ("pairs", PAIRS), ("placements", PLACEMENTS)):
            out[name] = dict(con.execute(query, params).fetchall())
        return out
    finally:
        con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--previous", default="graph-refresh-unchanged")
    parser.add_argument("--crawl", default="graph-refresh-edited")
    args = parser.parse_args()
    found = anatomy(args.db, args.previous, args.crawl)
    print(json.dumps(found, indent=1))
    for name in ("sources", "pairs", "placements"):
        total = sum(found[name].values())
        print(f"{name}: {total:,}")
        for why, n in found[name].items():
            print(f"  {why:42s} {n:8,} {100 * n / max(total, 1):6.1f} %")


if __name__ == "__main__":
    main()
