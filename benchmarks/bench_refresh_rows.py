"""What a refresh writes again: for each crawl-keyed table, the rows of a crawl and how many
of them are not the previous crawl's (every column but ``crawl_id`` compared, ``EXCEPT ALL``),
partition by partition (crawl, or crawl x shard). A partition with none new is one a crawl
could refer to instead of copying; the rows of the others are what a reference by partition
would still copy.

    python benchmarks/bench_refresh_rows.py /tmp/b10/db-10000-graph/bench.duckdb \
        --previous graph-refresh-unchanged --crawl graph-refresh-edited

Read-only: the database is opened for reading only.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import duckdb

from linkpipe.lib.storage import CRAWL_TABLES, SHARD_TABLES


def columns_of(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """The table's columns but ``crawl_id`` (and ``shard``), quoted."""
    query = "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY 1"
    names = [r[0] for r in con.execute(query, [table]).fetchall()]
    return [f'"{c}"' for c in names if c not in ("crawl_id", "shard")]


def partitions(
    con: duckdb.DuckDBPyConnection, table: str, crawl: str, previous: str
) -> list[tuple[int | None, int, int]]:
    """(shard or None, rows of ``crawl``, rows not in ``previous``) of each partition."""
    cols = ", ".join(columns_of(con, table))
    shard = "shard" if table in SHARD_TABLES else "NULL::INTEGER"
    new = (
        f"SELECT {shard} AS part, {cols} FROM {table} WHERE crawl_id = $crawl "
        f"EXCEPT ALL SELECT {shard} AS part, {cols} FROM {table} WHERE crawl_id = $previous"
    )
    query = (
        f"WITH rows AS (SELECT {shard} AS part, count(*) AS n FROM {table} "
        f"WHERE crawl_id = $crawl GROUP BY ALL), "
        f"new AS (SELECT part, count(*) AS n FROM ({new}) GROUP BY ALL) "
        "SELECT rows.part, rows.n, coalesce(new.n, 0) FROM rows "
        "LEFT JOIN new ON rows.part IS NOT DISTINCT FROM new.part ORDER BY rows.part"
    )
    return con.execute(query, {"crawl": crawl, "previous": previous}).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--previous", required=True, help="the crawl before")
    parser.add_argument("--crawl", required=True, help="the refresh")
    args = parser.parse_args()
    con = duckdb.connect(str(args.db), read_only=True)
    totals = {"rows": 0, "new": 0, "in unchanged partitions": 0}
    print(f"{'table':26s} {'rows':>9s} {'new':>8s}  partitions without a new row")
    for table in sorted(CRAWL_TABLES | SHARD_TABLES):
        parts = partitions(con, table, args.crawl, args.previous)
        rows, new = sum(p[1] for p in parts), sum(p[2] for p in parts)
        same = [p for p in parts if p[2] == 0]
        totals["rows"] += rows
        totals["new"] += new
        totals["in unchanged partitions"] += sum(p[1] for p in same)
        names = ", ".join("all" if p[0] is None else str(p[0]) for p in same)
        print(f"{table:26s} {rows:9d} {new:8d}  {names}")
    print(", ".join(f"{name} {count:,}" for name, count in totals.items()))


if __name__ == "__main__":
    main()
