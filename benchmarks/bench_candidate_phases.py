"""Where one crawl's candidate step spends its CPU: the step of every shard run again in this
process on a copy of the database, with the CPU of its main phases (each with the phases it
calls) and how many stored parses it read against the sentences its placement judged.

    python benchmarks/bench_candidate_phases.py /tmp/b10k/db-10000-graph/bench.duckdb \
        --crawl graph-refresh-edited --copy-to /tmp/phases.duckdb

The step reads the previous crawl's rows as the product does, so run it with the code that
computed the database's crawls (another version of ``linkpipe/lib`` recomputes every source).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import shutil
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

CPU: Counter[str] = Counter()
CALLS: Counter[str] = Counter()
JUDGED: set[str] = set()
# (module, attribute, modules that imported it by name): the phases timed
PHASES = [
    ("linkpipe.lib.links.retrieval", "search", ["linkpipe.lib.links.source_gate"]),
    ("linkpipe.lib.links.candidates", "candidate_rows", ["linkpipe.lib.stages.candidate_pairs"]),
    ("linkpipe.lib.links.source_gate", "name_keys", []),
    ("linkpipe.lib.links.source_gate", "gate_digest", []),
    ("linkpipe.lib.text.lexical_index", "LexicalIndex.neighbours", []),
    ("linkpipe.lib.stages.kept_searches", "kept_lists", []),
    ("linkpipe.lib.links.source_reuse", "SourceReuse.split", []),
    ("linkpipe.lib.stages.parse_cache", "ParseCache.load", []),
    ("linkpipe.lib.text.phrases", "PhraseJudge.prepare", []),
    ("linkpipe.lib.links.site_context", "SiteContext.profile", []),
    ("linkpipe.lib.stages.candidate_pairs", "write_partition", []),
]


def timed(
    label: str | Callable[[tuple[Any, ...]], str],
    func: Callable[..., Any],
    cpu: Counter[str] = CPU,
    rows: Counter[str] | None = None,
) -> Callable[..., Any]:
    """``func`` adding the process CPU of each call to ``cpu`` and 1 to :data:`CALLS` under
    ``label`` (or ``label(args)``, e.g. a table named there), and to ``rows`` what it
    returns when that is a count."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        name = label if isinstance(label, str) else label(args)
        start = time.process_time()
        try:
            result = func(*args, **kwargs)
        finally:
            cpu[name] += time.process_time() - start
            CALLS[name] += 1
        if rows is not None and isinstance(result, int):
            rows[name] += result
        return result

    return wrapper


def instrument() -> None:
    """Wrap every phase of :data:`PHASES`, and record the sentences judges parse or look up."""
    for module, attribute, importers in PHASES:
        owner: Any = importlib.import_module(module)
        name = attribute
        if "." in attribute:
            cls, name = attribute.split(".")
            owner = getattr(owner, cls)
        wrapped = timed(attribute, getattr(owner, name))
        setattr(owner, name, wrapped)
        for other in importers:
            setattr(importlib.import_module(other), name, wrapped)
    phrases = importlib.import_module("linkpipe.lib.text.phrases")
    parse = phrases.PhraseJudge.parse

    def judged(self: Any, sentence: str) -> Any:
        JUDGED.add(sentence)
        return parse(self, sentence)

    phrases.PhraseJudge.parse = judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path, help="a database holding the crawl")
    parser.add_argument("--crawl", required=True, help="the crawl id")
    parser.add_argument("--copy-to", type=Path, required=True, help="work on a copy made here")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args()
    shutil.copyfile(args.db, args.copy_to)
    instrument()
    from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs

    start, loaded = time.process_time(), 0
    for shard in range(DEFAULT_SHARDS):
        meta = materialize_candidate_pairs(args.copy_to, args.crawl, shard, args.model).meta
        loaded += meta["parses_loaded"]
    print(f"candidate step: {time.process_time() - start:.2f} CPU-s")
    print(f"stored parses read {loaded:,}, sentences judged {len(JUDGED):,}")
    print("| phase | CPU s | calls |\n|---|---|---|")
    for label, cpu in CPU.most_common():
        print(f"| {label} | {cpu:.2f} | {CALLS[label]:,} |")


if __name__ == "__main__":  # forkserver workers may import this module: nothing runs then
    main()
