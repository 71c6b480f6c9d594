"""End-to-end cost of linkpipe per stage on generated sites: full run and nightly refreshes.

    pip install -e '.[bench]'                                         # wordfreq, psutil
    python benchmarks/bench_pipeline.py --sizes 1000 --model hashing-64 --json /tmp/b1k.json
    python benchmarks/bench_pipeline.py --sizes 1000 10000 --json /tmp/bench.json   # real model
    python benchmarks/bench_pipeline.py --sizes 300 --mode both --model hashing-64

For each size N: generate a site with gen_large_site.py (reused from --workdir when the same
N and seed are there unedited), serve it on 127.0.0.1, and in one fresh DuckDB file run three
crawls of it: ``full``; ``refresh_unchanged`` (a new crawl id, same site); ``refresh_edited``
(after ``--edit`` % of the pages had one paragraph rewritten). Each crawl is registered as
`linkpipe run` does (``register_crawl``) and the graph is run with ``--mode``:
``direct`` (each stage's materialize function, all shards, measured per asset), ``graph``
(Dagster's ``run_graph``, measured per step through ``on_step``) or ``both`` (one database
each). Per stage: CPU seconds of the process and its children (the crawler is a child), wall
seconds, peak RSS (see bench_meter.py). Prints a Markdown table per size and mode with each
refresh's CPU as a ratio of the full run of the same invocation, and with several sizes the
growth exponent log(cpu2/cpu1)/log(n2/n1) of each stage; --json writes everything.
The CPU figures are the ones to compare: on shared cores wall time also counts waiting.
The three crawls run in this one process unless ``--fresh-process``: then each runs in a new
process, as a nightly ``linkpipe run`` does (no model, parser or parsed sentence of the full
run still in memory when a refresh starts).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_meter import Meter, served_apart, total
from bench_report import EDITED, FULL, UNCHANGED, growth_exponents, growth_table, run_table
from bench_steps import RUNNERS
from gen_large_site import edit_site, generate_site, read_meta

DEFAULT_WORKDIR = Path("/tmp/linkpipe-bench")


def prepare_site(root: Path, n_pages: int, seed: int) -> dict[str, Any]:
    """The generated site of ``n_pages`` under ``root``: reused when unedited, else written."""
    meta = read_meta(root)
    if meta and meta.get("pages") == n_pages and meta.get("seed") == seed and not meta["edits"]:
        return meta
    print(f"generating {n_pages:,} pages under {root} ...", file=sys.stderr)
    generate_site(root, n_pages, seed)
    meta = read_meta(root)
    assert meta is not None
    return meta


def crawl_config(n_pages: int) -> dict[str, Any]:
    """Crawler settings that fetch the whole generated site."""
    return {"max_pages": n_pages * 2 + 500, "concurrency": 16, "total_time_s": 24 * 3600}


def run_scenario(
    db: Path, crawl_id: str, base_url: str, n_pages: int, model: str, mode: str
) -> list[dict[str, Any]]:
    """Register ``crawl_id`` for the served site and run the graph; usage per stage."""
    from linkpipe.lib.stages.crawl_export import register_crawl

    register_crawl(db, crawl_id, base_url + "/", "crawler", "", crawl_config(n_pages))
    print(f" {crawl_id}:", file=sys.stderr, flush=True)
    meter = Meter(echo=True)  # each stage as it ends: a run stopped early keeps its figures
    RUNNERS[mode](db, crawl_id, model, meter)
    for stage in meter.stages:
        print(
            f"  {crawl_id:<22} {stage.stage:<26} cpu {stage.cpu_s:8.1f}s  wall {stage.wall_s:8.1f}s"
            f"  rss {stage.rss_tree_peak_mib:7.0f} MiB",
            file=sys.stderr,
        )
    return [s.as_dict() for s in meter.stages]


def run_scenario_apart(
    db: Path, crawl_id: str, base_url: str, n_pages: int, model: str, mode: str
) -> list[dict[str, Any]]:
    """:func:`run_scenario` in a new Python process, as a nightly ``linkpipe run`` is: nothing
    loaded, imported or parsed by an earlier crawl of the benchmark is in memory."""
    job = json.dumps([str(db), crawl_id, base_url, n_pages, model, mode])
    done = subprocess.run(
        [sys.executable, __file__, "--scenario", job], stdout=subprocess.PIPE, text=True,
        check=True,
    )  # fmt: skip
    stages: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return stages


def bench_mode(
    site_root: Path, base_url: str, n_pages: int, mode: str, round_: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Full run, unchanged refresh and edited refresh of one site in a fresh database."""
    from bench_meter import StageUsage

    db_dir = args.workdir / f"db-{n_pages}-{mode}"
    shutil.rmtree(db_dir, ignore_errors=True)
    db_dir.mkdir(parents=True)
    db = db_dir / "bench.duckdb"
    scenarios: dict[str, list[dict[str, Any]]] = {}
    print(f"{n_pages:,} pages, mode {mode}, model {args.model}", file=sys.stderr)
    for name in (FULL, UNCHANGED, EDITED):
        if name == EDITED:
            backup = args.workdir / f"edit-backup-{n_pages}"
            edited = edit_site(site_root, args.edit, args.seed, round_, backup, args.renamed)
            print(f"  edited {len(edited)} pages ({args.edit} %)", file=sys.stderr)
        crawl_id = f"{mode}-{name.replace('_', '-')}"
        run = run_scenario_apart if args.fresh_process else run_scenario
        scenarios[name] = run(db, crawl_id, base_url, n_pages, args.model, mode)
    totals = {
        name: total([StageUsage(**s) for s in stages]).as_dict()
        for name, stages in scenarios.items()
    }
    return {
        "pages": n_pages,
        "mode": mode,
        "model": args.model,
        "edit_percent": args.edit,
        "renamed_share": args.renamed,
        "fresh_process": args.fresh_process,
        "scenarios": scenarios,
        "totals": totals,
        "db_mib": round(sum(f.stat().st_size for f in db_dir.glob("*.duckdb")) / 2**20, 1),
    }


def bench_size(n_pages: int, modes: list[str], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every mode on the site of ``n_pages`` (generated or reused); the site is restored after."""
    from gen_large_site import restore_site

    root = args.workdir / f"site-{n_pages}-seed{args.seed}"
    site = prepare_site(root, n_pages, args.seed)
    runs = []
    try:
        with served_apart(root) as base_url:
            for round_, mode in enumerate(modes, start=1):
                run = bench_mode(root, base_url, n_pages, mode, round_, args)
                runs.append(run | {"site": {k: site[k] for k in ("topics", "kinds", "megabytes")}})
    finally:
        backup = args.workdir / f"edit-backup-{n_pages}"
        if backup.exists():
            restore_site(root, backup)
    return runs


def _args() -> argparse.Namespace:
    from linkpipe.cli.options import default_model

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000], metavar="N")
    parser.add_argument("--mode", choices=["direct", "graph", "both"], default="direct")
    parser.add_argument("--model", default=default_model(), help="e.g. hashing-64 (fast fake)")
    parser.add_argument("--edit", type=float, default=1.0, help="%% of pages edited (default 1)")
    parser.add_argument(
        "--renamed", type=float, default=0.0,
        help="share of the edited pages that also get a new title and H1 (default 0)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--json", type=Path, default=None, metavar="PATH")
    parser.add_argument(
        "--fresh-process", action="store_true",
        help="run each crawl in a new process, as nightly runs are (default: one process)",
    )  # fmt: skip
    parser.add_argument("--scenario", default="", help=argparse.SUPPRESS)  # a child's job
    return parser.parse_args()


def main() -> None:
    args = _args()
    if args.scenario:  # a child of run_scenario_apart: its stages as JSON on the last line
        db, crawl_id, base_url, n_pages, model, mode = json.loads(args.scenario)
        print(json.dumps(run_scenario(Path(db), crawl_id, base_url, n_pages, model, mode)))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    modes = ["direct", "graph"] if args.mode == "both" else [args.mode]
    started, load_before = time.time(), os.getloadavg()
    runs = [run for n in sorted(args.sizes) for run in bench_size(n, modes, args)]
    growth = growth_exponents(runs)
    print("\n\n".join([*(run_table(r) for r in runs), growth_table(growth)]).strip())
    if args.json:
        machine = {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "loadavg_before": load_before,
            "loadavg_after": os.getloadavg(),
        }
        report = {"started": started, "machine": machine, "runs": runs, "growth": growth}
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")
        print(f"\nwrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
