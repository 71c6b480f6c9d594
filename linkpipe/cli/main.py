"""`linkpipe demo | run | crawl | sql ...`: the command-line interface."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from pathlib import Path

DEMO_DIR = Path(".linkpipe") / "demo"
DEMO_SITE = Path(__file__).resolve().parents[1] / "demo_site"
DEMO_PORT = 8765


CONFIG_HELP = "TOML settings: [crawl], [indexability], [page_types], [graph], [scoring]"


class UserError(RuntimeError):
    """A problem the user can fix; printed as one line, exit status 1."""


def _default_crawl_id(db: Path) -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d-%H%M%S")


def _settings(args: argparse.Namespace, default_max_pages: int = 10_000) -> dict:
    """Crawl settings from --config (TOML) with --max-pages on top."""
    from linkpipe.lib.run_config import load_config_file

    settings = load_config_file(Path(args.config)) if getattr(args, "config", None) else {}
    if getattr(args, "max_pages", None):
        settings["max_pages"] = args.max_pages
    settings.setdefault("max_pages", default_max_pages)
    return settings


def _check_db_writable(db: Path) -> None:
    from linkpipe.lib.storage import open_db

    with open_db(db, wait_s=5):
        pass


def run_pipeline(
    url: str,
    db: Path,
    crawl_id: str,
    model: str,
    settings: dict,
    stages: tuple[str, ...] = ("all",),
    source: str = "crawler",
    source_path: str = "",
) -> dict[str, float]:
    """Register the crawl and materialize the graph; return seconds per step."""
    from linkpipe.cli.output import ProgressPrinter
    from linkpipe.defs.runner import run_graph
    from linkpipe.lib import progress
    from linkpipe.lib.stages.crawl_export import register_crawl

    _check_db_writable(db)
    register_crawl(db, crawl_id, url, source, source_path, settings)
    printer = ProgressPrinter()
    progress.set_reporter(printer)
    timings: dict[str, float] = {}
    state = {"label": None, "t": time.perf_counter()}

    def on_step(label: str) -> None:
        now = time.perf_counter()
        if state["label"]:
            timings[state["label"]] = now - state["t"]
        state.update(label=label, t=now)
        printer.step(label)

    try:
        run_graph(db, crawl_id, model, stages=stages, on_step=on_step)
    finally:
        progress.set_reporter(None)
    if state["label"]:
        timings[state["label"]] = time.perf_counter() - state["t"]
    return timings


def _top_suggestions(db: Path, crawl_id: str, limit: int) -> list[dict]:
    from linkpipe.lib.storage import fetch_dicts, open_db

    with open_db(db) as con:
        return fetch_dicts(con, "read/select_top_opportunities", [crawl_id, limit])


def cmd_demo(args: argparse.Namespace) -> None:
    from linkpipe.cli.output import console, print_suggestions
    from linkpipe.lib.static_site import start_site

    db = Path(args.db)
    try:
        site = start_site(DEMO_SITE, DEMO_PORT)
    except OSError:
        site = start_site(DEMO_SITE, 0)
    console.print(f"Serving the demo site at {site.base_url}/")
    crawl_id = args.crawl_id or "demo-" + dt.date.today().isoformat()
    started = time.perf_counter()
    try:
        timings = run_pipeline(site.base_url + "/", db, crawl_id, args.model, _settings(args, 500))
    finally:
        site.stop()
    total = time.perf_counter() - started
    rows = _top_suggestions(db, crawl_id, args.top)
    print_suggestions(rows, f"Top {len(rows)} link suggestions (crawl {crawl_id})")
    console.print(
        "Stage times: "
        + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items())
        + f"; total {total:.1f}s"
    )
    home = db.resolve().parent / "dagster_home"
    console.print(f"""
Database: {db}
Query it:      linkpipe sql --db {db} "SELECT * FROM v_opportunities LIMIT 20"
Open the UI:   DAGSTER_HOME={home} LINKPIPE_DB={db.resolve()} dagster dev
""")


def cmd_run(args: argparse.Namespace) -> None:
    from linkpipe.cli.output import console

    db = Path(args.db)
    crawl_id = args.crawl_id or _default_crawl_id(db)
    timings = run_pipeline(args.url, db, crawl_id, args.model, _settings(args))
    console.print(
        f"crawl {crawl_id} done: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items())
    )
    console.print(f'Query: linkpipe sql --db {db} "SELECT * FROM v_opportunities LIMIT 20"')


def cmd_crawl(args: argparse.Namespace) -> None:
    from linkpipe.cli.output import console

    db = Path(args.db)
    crawl_id = args.crawl_id or _default_crawl_id(db)
    run_pipeline(
        args.url,
        db,
        crawl_id,
        args.model,
        _settings(args),
        stages=("crawl_export", "indexable_pages", "link_graph"),
    )
    console.print(f"crawl {crawl_id} stored in {db}")


def cmd_import(args: argparse.Namespace) -> None:
    from linkpipe.cli.output import console
    from linkpipe.lib.importers import FILE_IMPORTERS, detect_import_kind, read_url_list

    path = Path(args.path).resolve()
    if not path.exists():
        raise UserError(f"no such file or folder: {path}")
    kind = detect_import_kind(path) if args.kind == "auto" else args.kind
    # Read once before registering anything: a malformed file names file, line and column
    # and leaves the database untouched.
    if kind in FILE_IMPORTERS:
        imported = FILE_IMPORTERS[kind](path)
        start_url = imported.start_url
        for warning in imported.warnings[:10]:
            console.print(f"warning: {warning}")
    else:
        urls = read_url_list(path)
        start_url = urls[0]
    db = Path(args.db)
    crawl_id = args.crawl_id or f"{kind.replace('_', '-')}-" + _default_crawl_id(db)
    stages = ("all",) if not args.no_graph else ("crawl_export", "indexable_pages", "link_graph")
    timings = run_pipeline(
        start_url,
        db,
        crawl_id,
        args.model,
        _settings(args, 10**7),
        stages=stages,
        source=kind,
        source_path=str(path),
    )
    console.print(
        f"imported {kind} as crawl {crawl_id}: "
        + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items())
    )


def cmd_sql(args: argparse.Namespace) -> None:
    import duckdb

    from linkpipe.cli.output import print_rows
    from linkpipe.lib.storage import StorageError, connect

    db = Path(args.db)
    published = db.with_name(db.stem + ".published.duckdb")
    try:
        con = connect(db, read_only=True)
    except StorageError:
        if not published.exists():
            raise
        con = connect(published, read_only=True)  # the writer holds the lock: read the copy
    try:
        cur = con.execute(args.query)
    except duckdb.Error as exc:
        raise UserError(f"query failed: {str(exc).splitlines()[0]}") from exc
    if cur.description is None:
        return
    print_rows([d[0] for d in cur.description], cur.fetchall(), args.format)


def build_parser() -> argparse.ArgumentParser:
    from linkpipe.cli.eval import add_eval_parser
    from linkpipe.cli.review import add_review_parser
    from linkpipe.cli.signals import add_signals_parser
    from linkpipe.lib.importers import IMPORT_KINDS
    from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

    parser = argparse.ArgumentParser(prog="linkpipe", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    model_help = "sentence-transformers model name or path (default: the bundled MiniLM)"

    p = sub.add_parser("demo", help="serve the bundled demo site and run the whole graph on it")
    p.add_argument("--db", default=str(DEMO_DIR / "linkpipe.duckdb"))
    p.add_argument("--crawl-id")
    p.add_argument(
        "--model", default=os.environ.get("LINKPIPE_MODEL", DEFAULT_MODEL), help=model_help
    )
    p.add_argument("--top", type=int, default=15, help="suggestions to print")
    p.add_argument("--config", help=CONFIG_HELP)
    p.set_defaults(func=cmd_demo)

    for name, func, text in (
        ("run", cmd_run, "crawl URL and materialize the whole graph"),
        ("crawl", cmd_crawl, "crawl URL: crawl export, indexability, link graph"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("url")
        p.add_argument("--db", required=True)
        p.add_argument("--crawl-id")
        p.add_argument("--max-pages", type=int, help="default 10,000 (or [crawl] max_pages)")
        p.add_argument("--config", help=CONFIG_HELP)
        p.add_argument(
            "--model", default=os.environ.get("LINKPIPE_MODEL", DEFAULT_MODEL), help=model_help
        )
        p.set_defaults(func=func)

    p = sub.add_parser("import", help="import a Screaming Frog folder, a WARC file or a URL list")
    p.add_argument("path")
    p.add_argument("--db", required=True)
    p.add_argument("--crawl-id")
    p.add_argument("--kind", choices=["auto", *IMPORT_KINDS], default="auto")
    p.add_argument("--no-graph", action="store_true", help="stop after the link graph")
    p.add_argument("--config", help=CONFIG_HELP)
    p.add_argument(
        "--model", default=os.environ.get("LINKPIPE_MODEL", DEFAULT_MODEL), help=model_help
    )
    p.set_defaults(func=cmd_import)

    add_review_parser(sub)
    add_signals_parser(sub)
    add_eval_parser(sub)

    p = sub.add_parser("sql", help="run a read-only SQL query")
    p.add_argument("--db", required=True)
    p.add_argument("--format", choices=["table", "csv", "tsv"], default="table")
    p.add_argument("query")
    p.set_defaults(func=cmd_sql)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    from linkpipe.defs.runner import RunFailed
    from linkpipe.lib.crawl import CrawlError
    from linkpipe.lib.importers import ImportFormatError
    from linkpipe.lib.run_config import ConfigError
    from linkpipe.lib.storage import StorageError
    from linkpipe.lib.vectors.embedding import EmbeddingError

    try:
        args.func(args)
    except (
        UserError,
        StorageError,
        CrawlError,
        EmbeddingError,
        RunFailed,
        ImportFormatError,
        ConfigError,
        ValueError,
    ) as exc:
        print(f"linkpipe: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into head & co.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("linkpipe: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
