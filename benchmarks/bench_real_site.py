"""A real site end to end: full run and a refresh with nothing changed, per step, over loopback.

    pip install -e '.[bench]'                                     # psutil
    python benchmarks/bench_real_site.py --json /tmp/jdk.json      # OpenJDK 17 API, ~10k URLs
    python benchmarks/bench_real_site.py /usr/share/gimp/2.0/help/en --mode direct

Serves SITE_ROOT on 127.0.0.1 from a child process the meter leaves out and runs, in one fresh
DuckDB file, a full run of the graph and a refresh of the unchanged site (a new crawl: every URL
revalidated with a conditional request), each measured per step (``--mode graph``: the path of
``linkpipe run``; ``direct``: each stage function, see bench_steps.py). Prints the table of
bench_pipeline.py (CPU per step and per page, wall, peak RSS, the refresh as a ratio of the full
run); --json writes everything. Installs openjdk-17-doc when the default folder is missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_meter import StageUsage, served_apart, total
from bench_pipeline import run_scenario
from bench_report import FULL, UNCHANGED, run_table

OPENJDK = Path("/usr/share/doc/openjdk-17-jre-headless/api")


def html_pages(db: Path, crawl_id: str) -> int:
    """Pages of the crawl that had HTML (the per-page figures divide by this)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        query = "SELECT count(*) FROM crawl_pages_html WHERE crawl_id = ? AND html_z IS NOT NULL"
        return int(con.execute(query, [crawl_id]).fetchall()[0][0])
    finally:
        con.close()


def bench(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The full run and the unchanged refresh of the site at ``root``."""
    shutil.rmtree(args.workdir, ignore_errors=True)
    args.workdir.mkdir(parents=True)
    db = args.workdir / "bench.duckdb"
    scenarios: dict[str, list[dict[str, Any]]] = {}
    with served_apart(root) as base_url:
        for name in (FULL, UNCHANGED):
            crawl_id = f"{args.mode}-{name.replace('_', '-')}"
            scenarios[name] = run_scenario(
                db, crawl_id, base_url, args.max_pages, args.model, args.mode
            )
    totals = {
        n: total([StageUsage(**s) for s in stages]).as_dict() for n, stages in scenarios.items()
    }
    return {
        "site": str(root),
        "pages": html_pages(db, f"{args.mode}-full"),
        "mode": args.mode,
        "model": args.model,
        "scenarios": scenarios,
        "totals": totals,
    }


def main() -> None:
    from linkpipe.cli.options import default_model

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("site_root", nargs="?", type=Path, default=OPENJDK)
    parser.add_argument("--max-pages", type=int, default=12_000)
    parser.add_argument("--mode", choices=["direct", "graph"], default="graph")
    parser.add_argument("--model", default=default_model())
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/linkpipe-bench-real"))
    parser.add_argument("--json", type=Path, default=None, metavar="PATH")
    args = parser.parse_args()
    if args.site_root == OPENJDK and not OPENJDK.exists():
        subprocess.run(["apt-get", "install", "-y", "openjdk-17-doc"], check=True)
    run = bench(args.site_root, args)
    print(run_table(run))
    if args.json:
        args.json.write_text(json.dumps(run, indent=1), encoding="utf-8")
        print(f"\nwrote {args.json}", file=sys.stderr)


if __name__ == "__main__":
    main()
