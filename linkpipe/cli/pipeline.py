"""`linkpipe demo | run | crawl | import`: register a crawl partition and run the asset graph."""

from __future__ import annotations

import argparse
import datetime as dt
import time
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linkpipe.cli import options
from linkpipe.cli.errors import UserError

if TYPE_CHECKING:
    from linkpipe.cli.options import Subparsers

DEMO_DIR = Path(".linkpipe") / "demo"
DEMO_SITE = Path(str(files("linkpipe").joinpath("demo_site")))  # package data
DEMO_PORT = 8765
CRAWL_STAGES = ("crawl_export", "indexable_pages", "link_graph")
PUBLISH_STAGE = "published_snapshot"


@dataclass
class StepTimer:
    """Seconds spent in each step of the graph, in order."""

    timings: dict[str, float] = field(default_factory=dict)
    _label: str | None = None
    _started: float = 0.0

    def start(self, label: str) -> None:
        """End the running step (if any) and start timing ``label``."""
        self.stop()
        self._label, self._started = label, time.perf_counter()

    def stop(self) -> None:
        """End the running step."""
        if self._label is not None:
            self.timings[self._label] = time.perf_counter() - self._started
            self._label = None


def _timestamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d-%H%M%S")


def _settings(args: argparse.Namespace, default_max_pages: int = 10_000) -> dict[str, Any]:
    """Crawl settings from --config (TOML) with --max-pages on top."""
    from linkpipe.lib.run_config import load_config_file

    settings = load_config_file(Path(args.config)) if args.config else {}
    if getattr(args, "max_pages", None):
        settings["max_pages"] = args.max_pages
    settings.setdefault("max_pages", default_max_pages)
    return settings


def _checked_crawl_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings of `run` / `crawl` once the start URL's form, --config, the database
    location and the start URL's answer are checked: a failure writes nothing."""
    from linkpipe.cli.preflight import check_db_location, check_reachable, check_start_url

    check_start_url(args.url)
    settings = _settings(args)
    check_db_location(Path(args.db))
    check_reachable(args.url, settings)
    return settings


def _format_timings(timings: dict[str, float]) -> str:
    return ", ".join(f"{step} {seconds:.1f}s" for step, seconds in timings.items())


def run_pipeline(
    url: str,
    db: Path,
    crawl_id: str,
    model: str,
    settings: dict[str, Any],
    stages: tuple[str, ...] = ("all",),
    source: str = "crawler",
    source_path: str = "",
    *,
    keep_crawls: int,
) -> dict[str, float]:
    """Register the crawl, materialize the graph (``published_snapshot`` prunes the crawls
    older than the ``keep_crawls`` most recent, then publishes the kept ones; without it the
    crawls are pruned here), say which crawls went; return seconds per step."""
    from linkpipe.cli.output import err_console
    from linkpipe.cli.progress import ProgressDisplay
    from linkpipe.defs.partitions import prune_crawl_partitions
    from linkpipe.defs.runner import instance_for, run_graph
    from linkpipe.lib.stages.crawl_export import register_crawl
    from linkpipe.lib.storage import open_db

    with open_db(db, wait_s=5):  # fail early, before anything is registered
        pass
    register_crawl(db, crawl_id, url, source, source_path, settings)
    graph, publish = _graph_and_publish_stages(stages)
    timer = StepTimer()
    with ProgressDisplay(err_console) as display:

        def on_step(label: str) -> None:
            timer.start(label)
            display.step(label)

        run_graph(db, crawl_id, model, stages=graph, on_step=on_step)
        if publish:  # published_snapshot prunes, then publishes the crawls it kept
            before = _crawl_ids(db)
            run_graph(db, crawl_id, model, stages=publish, keep_crawls=keep_crawls)
            pruned = sorted(before - _crawl_ids(db))
        else:  # no published_snapshot: prune here, as it would
            pruned = prune_crawl_partitions(db, keep_crawls, instance_for(db))
        if pruned:
            err_console.print(f"pruned {len(pruned)} old crawl(s): {', '.join(pruned)}")
    timer.stop()
    return timer.timings


def _graph_and_publish_stages(
    stages: tuple[str, ...],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``stages`` split into the graph to run first and the published snapshot to run last."""
    from linkpipe.defs.assets import ALL_ASSETS

    names = tuple(a.key.path[-1] for a in ALL_ASSETS) if "all" in stages else stages
    graph = tuple(n for n in names if n != PUBLISH_STAGE)
    return graph, tuple(n for n in names if n == PUBLISH_STAGE)


def _crawl_ids(db: Path) -> set[str]:
    """Every registered crawl of the database."""
    from linkpipe.lib.storage import fetch_dicts, open_db

    with open_db(db) as con:
        return {str(r["crawl_id"]) for r in fetch_dicts(con, "read/select_crawl_ids")}


def cmd_demo(args: argparse.Namespace) -> None:
    """Serve the bundled demo site, run the whole graph on it, print the top suggestions."""
    from linkpipe.cli.output import console, print_suggestions, weights_line
    from linkpipe.defs.runner import dagster_home_for
    from linkpipe.lib.static_site import start_site
    from linkpipe.lib.storage import fetch_dicts, open_db

    db = Path(args.db)
    try:
        site = start_site(DEMO_SITE, DEMO_PORT)
    except OSError:  # the port is taken: any free one will do
        site = start_site(DEMO_SITE, 0)
    console.print(f"Serving the demo site at {site.base_url}/")
    crawl_id = args.crawl_id or "demo-" + dt.date.today().isoformat()
    started = time.perf_counter()
    try:
        timings = run_pipeline(
            site.base_url + "/",
            db,
            crawl_id,
            args.model,
            _settings(args, 500),
            keep_crawls=args.keep_crawls,
        )
    finally:
        site.stop()
    total = time.perf_counter() - started
    with open_db(db) as con:
        rows = fetch_dicts(con, "read/select_top_opportunities", [crawl_id, args.top])
        weights = fetch_dicts(con, "read/select_scoring_weights", [crawl_id])
    print_suggestions(rows, f"Top {len(rows)} link suggestions (crawl {crawl_id})")
    console.print(weights_line(weights[0] if weights else None), soft_wrap=True)
    console.print(f"Stage times: {_format_timings(timings)}; total {total:.1f}s")
    home = dagster_home_for(db)
    console.print(f"""
Database: {db}
Query it:      linkpipe sql --db {db} "SELECT * FROM v_opportunities LIMIT 20"
Open the UI:   DAGSTER_HOME={home} LINKPIPE_DB={db.resolve()} dagster dev
""")


def cmd_run(args: argparse.Namespace) -> None:
    """Crawl a site and materialize the whole graph."""
    from linkpipe.cli.output import console, weights_line
    from linkpipe.lib.storage import fetch_dicts, open_db

    db = Path(args.db)
    crawl_id = args.crawl_id or _timestamp()
    settings = _checked_crawl_settings(args)
    timings = run_pipeline(
        args.url, db, crawl_id, args.model, settings, keep_crawls=args.keep_crawls
    )
    console.print(f"crawl {crawl_id} done: {_format_timings(timings)}")
    with open_db(db, read_only=True) as con:
        weights = fetch_dicts(con, "read/select_scoring_weights", [crawl_id])
    console.print(weights_line(weights[0] if weights else None), soft_wrap=True)
    console.print(f'Query: linkpipe sql --db {db} "SELECT * FROM v_opportunities LIMIT 20"')


def cmd_crawl(args: argparse.Namespace) -> None:
    """Crawl a site: crawl export, indexable pages and link graph only."""
    from linkpipe.cli.output import console

    db = Path(args.db)
    crawl_id = args.crawl_id or _timestamp()
    settings = _checked_crawl_settings(args)
    run_pipeline(
        args.url,
        db,
        crawl_id,
        args.model,
        settings,
        stages=CRAWL_STAGES,
        keep_crawls=args.keep_crawls,
    )
    console.print(f"crawl {crawl_id} stored in {db}")


def _start_url_of_import(path: Path, kind: str) -> str:
    """Read the whole import once, before anything is registered: a malformed file names
    file, line and column and leaves the database untouched."""
    from linkpipe.cli.output import console
    from linkpipe.lib.importers import FILE_IMPORTERS, read_url_list

    if kind not in FILE_IMPORTERS:
        return read_url_list(path)[0]
    imported = FILE_IMPORTERS[kind](path)
    for warning in imported.warnings[:10]:
        console.print(f"warning: {warning}")
    return imported.start_url


def cmd_import(args: argparse.Namespace) -> None:
    """Import a Screaming Frog folder, a WARC file or a URL list as a new crawl."""
    from linkpipe.cli.output import console
    from linkpipe.cli.preflight import check_reachable
    from linkpipe.lib.importers import FILE_IMPORTERS, detect_import_kind

    path = Path(args.path).resolve()
    if not path.exists():
        raise UserError(f"no such file or folder: {path}")
    kind = detect_import_kind(path) if args.kind == "auto" else args.kind
    start_url = _start_url_of_import(path, kind)
    settings = _settings(args, 10**7)
    if kind not in FILE_IMPORTERS:  # a URL list is crawled: its site must answer first
        check_reachable(start_url, settings)
    db = Path(args.db)
    crawl_id = args.crawl_id or f"{kind.replace('_', '-')}-{_timestamp()}"
    timings = run_pipeline(
        start_url,
        db,
        crawl_id,
        args.model,
        settings,
        stages=CRAWL_STAGES if args.no_graph else ("all",),
        source=kind,
        source_path=str(path),
        keep_crawls=args.keep_crawls,
    )
    console.print(f"imported {kind} as crawl {crawl_id}: {_format_timings(timings)}")


def add_pipeline_parsers(sub: Subparsers) -> None:
    """Register ``demo``, ``run``, ``crawl`` and ``import``."""
    from linkpipe.lib.importers import IMPORT_KINDS

    p = sub.add_parser("demo", help="serve the bundled demo site and run the whole graph on it")
    options.add_db(p, default=str(DEMO_DIR / "linkpipe.duckdb"))
    options.add_crawl_id(p, "demo-<today>")
    options.add_model(p)
    p.add_argument(
        "--top", type=int, default=15, metavar="N", help="suggestions to print (default: 15)"
    )
    options.add_config(p)
    options.add_keep_crawls(p)
    p.set_defaults(func=cmd_demo)

    for name, func, text in (
        ("run", cmd_run, "crawl URL and materialize the whole graph"),
        ("crawl", cmd_crawl, "crawl URL: crawl export, indexability, link graph"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("url", metavar="URL", help="start URL of the crawl")
        options.add_db(p)
        options.add_crawl_id(p, "the UTC date and time")
        options.add_max_pages(p)
        options.add_config(p)
        options.add_model(p)
        options.add_keep_crawls(p)
        p.set_defaults(func=func)

    p = sub.add_parser("import", help="import a Screaming Frog folder, a WARC file or a URL list")
    p.add_argument("path", metavar="PATH", help="export folder, WARC file, URL list or sitemap")
    options.add_db(p)
    options.add_crawl_id(p, "<kind>-<UTC date and time>")
    p.add_argument(
        "--kind",
        choices=["auto", *IMPORT_KINDS],
        default="auto",
        help="what PATH is (default: auto)",
    )
    p.add_argument("--no-graph", action="store_true", help="stop after the link graph")
    options.add_config(p)
    options.add_model(p)
    options.add_keep_crawls(p)
    p.set_defaults(func=cmd_import)
