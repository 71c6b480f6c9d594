"""What the source gate spends on names: the part of every source's gate digest that says
which targets its text names and how (``gate_reads.names_read``, on the name index's arrays),
against the same targets and mentions picked with a dictionary per source
(``gate_reads.named_by_keys``, what retrieval takes for the sources the gate lets through),
for every source of a stored crawl, with the name keys the crawl stored for it:

    python benchmarks/bench_gate_names.py /tmp/e2e/db-10000-graph/bench.duckdb \
        graph-refresh-edited

Prints the CPU of each way over all the sources (median of three passes; the arrays' first
pass makes them and each pair's part) and checks that both give the same targets and
mentions, source by source.
"""

from __future__ import annotations

import argparse
import resource
import statistics
from collections.abc import Callable

import duckdb

from linkpipe.lib.links import gate_reads
from linkpipe.lib.links.retrieval import CandidateLimits
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.stages.candidate_context import load_site_context

Source = tuple[str, list[str], list[str]]  # URL, stored name keys, stored TF-IDF list


def _sources(db: str, crawl: str) -> list[Source]:
    con = duckdb.connect(db, read_only=True)
    try:
        return con.execute(
            "SELECT source_url, name_keys, coalesce(lexical_hits, []) FROM candidate_sources"
            " WHERE crawl_id = ? AND name_keys IS NOT NULL ORDER BY source_url",
            [crawl],
        ).fetchall()
    finally:
        con.close()


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _median_cpu(passes: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(passes):
        started = _cpu()
        work()
        times.append(_cpu() - started)
    return statistics.median(times)


def _same_picks(site: SiteContext, sources: list[Source]) -> int:
    """Sources whose arrays' picks differ from the dictionary's (0 expected)."""
    names, differ = site.name_arrays(), 0
    for source, keys, _ in sources:
        named = gate_reads.named_by_keys(site, source, keys)
        picked = [names.mentions[p] for p in names.best(keys, source)]
        differ += picked != [named[t] for t in sorted(named)]
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db")
    parser.add_argument("crawl")
    args = parser.parse_args()
    sources = _sources(args.db, args.crawl)
    site = load_site_context(args.db, args.crawl)
    limits = CandidateLimits()
    arrays = _median_cpu(
        3, lambda: [gate_reads.names_read(site, s, k, x, limits) for s, k, x in sources]
    )
    named = _median_cpu(3, lambda: [gate_reads.named_by_keys(site, s, k) for s, k, _ in sources])
    print(f"sources {len(sources)}, name pairs of the site {len(site.name_arrays().mentions)}")
    print(
        f"names_read on arrays: {arrays:.3f} CPU-s ({1e6 * arrays / len(sources):.0f} us a source)"
    )
    print(f"named_by_keys (dict): {named:.3f} CPU-s ({1e6 * named / len(sources):.0f} us a source)")
    print(f"sources whose picks differ: {_same_picks(site, sources)}")


if __name__ == "__main__":
    main()
