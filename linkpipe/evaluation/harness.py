"""`linkpipe eval`: how well linkpipe recovers links removed from a real static site.

For each seed: copy the site, remove a seeded share of its in-content links (see
:mod:`linkpipe.evaluation.link_removal`), serve the copy on 127.0.0.1, run the whole graph into crawl
partition ``eval-s<seed>`` of one DuckDB file, rank linkpipe's suggestions with the product's own
scoring (only the list per source is 10 long and targets are uncapped), and score them and three
baselines computed on the same indexable pages against the removed links (one crawl's scoring is
in :mod:`linkpipe.evaluation.crawl_eval`, the metrics in :mod:`linkpipe.evaluation.metrics`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from linkpipe.evaluation import link_removal as ev
from linkpipe.evaluation.crawl_eval import (
    EvalCrawl,
    PairReport,
    PathMap,
    evaluate_crawl,
    load_crawl,
)
from linkpipe.evaluation.metrics import Metrics, Pair
from linkpipe.lib.links.scoring import ScoringConfig
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import crawl_row, open_db

DEBIAN_SITES = {
    "gimp": ("gimp-help-en", Path("/usr/share/gimp/2.0/help/en")),
    "django": ("python-django-doc", Path("/usr/share/doc/python-django-doc/html")),
}
METHODS = ("linkpipe", "tfidf", "title+tfidf", "cocitation")
COLUMNS: tuple[str, ...] = ("recall@1", "recall@5", "recall@10", "precision@10", "anchor_overlap")
COLUMNS += ("repeat_share", "well_formed")  # well_formed: linkpipe's anchors that are phrases

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def ensure_debian_site(name: str, log: Log = _stderr) -> Path:
    """The folder of a Debian documentation site (``gimp`` or ``django``), installed if missing."""
    package, folder = DEBIAN_SITES[name]
    if folder.is_dir():
        return folder
    install = ["apt-get", "install", "-y", "--no-install-recommends", package]
    log(f"installing {package} ...")
    if subprocess.run(install, check=False).returncode != 0:
        subprocess.run(["apt-get", "update"], check=True)
        subprocess.run(install, check=True)
    if not folder.is_dir():
        raise FileNotFoundError(f"{package} is installed but {folder} is missing")
    return folder


def site_root_of(arg: str, log: Log = _stderr) -> Path:
    """A site folder from a path or one of the names in :data:`DEBIAN_SITES`."""
    if arg in DEBIAN_SITES and not Path(arg).is_dir():
        return ensure_debian_site(arg, log)
    root = Path(arg)
    if not root.is_dir():
        raise FileNotFoundError(f"site folder not found: {root}")
    return root


def copy_site(root: Path, dest: Path) -> Path:
    """Copy a site folder, following symlinks (Debian packages link shared files)."""
    shutil.copytree(root, dest, symlinks=False, ignore_dangling_symlinks=True)
    return dest


def prepare_copy(
    site_root: Path, copy: Path, fraction: float, seed: int
) -> tuple[list[ev.RemovedLink], set[str], set[Pair]]:
    """Copy the site and remove links: (removed links, page paths, pairs still linked)."""
    copy_site(site_root, copy)
    removed = ev.remove_links(copy, fraction, seed)
    pages = ev.html_pages(copy)
    return removed, pages, ev.content_link_pairs(copy, pages)


@dataclass
class StoredEval:
    """A seed's stored crawl and its ground truth, ready to be scored with any config."""

    crawl: EvalCrawl
    paths: PathMap
    removed: list[ev.RemovedLink]
    html_linked: set[Pair]

    def evaluate(
        self, config: ScoringConfig | None = None
    ) -> tuple[dict[str, Metrics], list[PairReport], dict[str, int]]:
        """:func:`evaluate_crawl` of this seed with ``config``."""
        return evaluate_crawl(self.crawl, self.paths, self.removed, self.html_linked, config)


def load_stored_eval(site_root: Path, db: Path, seed: int, fraction: float) -> StoredEval:
    """Crawl ``eval-s<seed>`` already in ``db`` with its removal rebuilt (it is deterministic), to
    evaluate again without running the graph, e.g. with other scoring weights."""
    crawl_id = f"eval-s{seed}"
    with open_db(db, read_only=True) as con:
        row = crawl_row(con, crawl_id)
    if row is None:
        raise ValueError(f"{db} has no crawl {crawl_id!r}: run `linkpipe eval` first")
    with tempfile.TemporaryDirectory(prefix="linkpipe-eval-") as tmp:
        removed, pages, html_linked = prepare_copy(site_root, Path(tmp) / "site", fraction, seed)
    crawl = load_crawl(db, crawl_id)
    return StoredEval(crawl, PathMap(row["start_url"], pages), removed, html_linked)


def run_seed(
    site_root: Path, db: Path, seed: int, fraction: float, model: str, max_pages: int,
    log: Log = _stderr,
) -> dict[str, Any]:  # fmt: skip
    """Remove links with ``seed``, run the graph on the copy and evaluate; one seed's report."""
    from linkpipe.defs.runner import run_graph
    from linkpipe.lib.stages.crawl_export import register_crawl

    crawl_id = f"eval-s{seed}"
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="linkpipe-eval-") as tmp:
        started = time.perf_counter()
        copy = Path(tmp) / "site"
        removed, pages, html_linked = prepare_copy(site_root, copy, fraction, seed)
        times["copy_and_remove_s"] = time.perf_counter() - started
        log(f"seed {seed}: removed {len(removed)} links, running the graph as {crawl_id}")
        started = time.perf_counter()
        with serve_site(copy) as site:
            register_crawl(
                db, crawl_id, site.base_url + "/", "crawler", "", {"max_pages": max_pages}
            )
            run_graph(db, crawl_id, model, on_step=lambda step: log(f"seed {seed}: {step}"))
        times["pipeline_s"] = time.perf_counter() - started
        started = time.perf_counter()
        crawl = load_crawl(db, crawl_id)
        metrics, pairs, counts = evaluate_crawl(
            crawl, PathMap(site.base_url, pages), removed, html_linked
        )
        times["evaluation_s"] = time.perf_counter() - started
    counts["html_pages"] = len(pages)
    return {"seed": seed, "crawl_id": crawl_id, **counts, "wall_s": times, "metrics": metrics,
            "pairs": pairs}  # fmt: skip


def code_digest() -> str:
    """sha1 (12 hex) of linkpipe's Python and SQL sources: which code produced a report."""
    package, sql = (Path(str(files(name))) for name in ("linkpipe", "linkpipe.sql"))
    sources = {f"linkpipe/{p.relative_to(package).as_posix()}": p for p in package.rglob("*.py")}
    sources |= {f"sql/{p.relative_to(sql).as_posix()}": p for p in sql.rglob("*.sql")}
    digest = hashlib.sha1()  # the same names in a checkout and in a wheel (linkpipe/sql/)
    for name in sorted(n for n in sources if not n.startswith("linkpipe/sql/")):
        digest.update(name.encode() + sources[name].read_bytes())
    return digest.hexdigest()[:12]


def mean_metrics(seeds: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Each method's columns averaged over seeds (None where a method has no value)."""
    out: dict[str, dict[str, float | None]] = {}
    for method in METHODS:
        out[method] = {}
        for col in COLUMNS:
            values = [s["metrics"][method][col] for s in seeds]
            known = [v for v in values if v is not None]
            out[method][col] = statistics.fmean(known) if known else None
    return out


def run_eval(
    site_root: Path, seeds: list[int], fraction: float, db: Path, model: str,
    max_pages: int = 10_000, json_path: Path | None = None, log: Log = _stderr,
) -> dict[str, Any]:  # fmt: skip
    """Evaluate every seed, write the JSON report and return it."""
    started, digest = time.perf_counter(), code_digest()
    db.parent.mkdir(parents=True, exist_ok=True)
    runs = [run_seed(site_root, db, s, fraction, model, max_pages, log) for s in seeds]
    report = {
        "site_root": str(site_root),
        "fraction": fraction,
        "seeds": seeds,
        "model": model,
        "db": str(db),
        "code_digest": digest,
        "wall_s": time.perf_counter() - started,
        "mean": mean_metrics(runs),
        "runs": runs,
    }
    json_path = json_path or db.with_name(db.stem + "-report.json")
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    report["json_path"] = str(json_path)
    return report


def _cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def metrics_table(metrics: dict[str, dict[str, Any]]) -> str:
    """A Markdown table: one row per method, one column per metric."""
    lines = ["| method | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for method in METHODS:
        cells = " | ".join(_cell(metrics[method][c]) for c in COLUMNS)
        lines.append(f"| {method} | {cells} |")
    return "\n".join(lines)


def format_report(report: dict[str, Any]) -> str:
    """The mean table, then each seed's table with its counts and wall times."""
    parts = [
        f"Site {report['site_root']}, fraction {report['fraction']}, seeds {report['seeds']}: "
        f"mean over seeds",
        "",
        metrics_table(report["mean"]),
    ]
    for run in report["runs"]:
        wall = ", ".join(f"{k[:-2]} {v:.0f}s" for k, v in run["wall_s"].items())
        parts += [
            "",
            f"Seed {run['seed']} ({run['crawl_id']}): {run['removed_links']} links removed "
            f"({run['removed_pairs']} pairs), {run['truth_pairs']} ground-truth pairs, "
            f"{run['indexable_pages']} indexable of {run['html_pages']} HTML pages; {wall}",
            "",
            metrics_table(run["metrics"]),
        ]
    parts += [
        "",
        f"Total wall time {report['wall_s']:.0f}s; code {report['code_digest']}; "
        f"JSON report: {report.get('json_path')}",
    ]
    return "\n".join(parts)
