"""`linkpipe eval`: how well linkpipe recovers links removed from a real static site.

For each seed: copy the site (the named sites and their subsets are in
:mod:`linkpipe.evaluation.sites`; the copy gets a ``sitemap.xml`` of its pages), remove a seeded
share of its in-content links (see :mod:`linkpipe.evaluation.link_removal`), serve the copy on
127.0.0.1, run the whole graph from the site's start page into crawl
partition ``eval-s<seed>`` of one DuckDB file, rank linkpipe's suggestions with the product's own
scoring (only the list per source is 10 long and targets are uncapped), and score them and three
baselines computed on the same indexable pages against the removed links (one crawl's scoring is
in :mod:`linkpipe.evaluation.crawl_eval`, the metrics in :mod:`linkpipe.evaluation.metrics`).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from linkpipe.evaluation import link_removal as ev
from linkpipe.evaluation.crawl_eval import (
    EvalCrawl,
    PairReport,
    PathMap,
    evaluate_crawl,
    load_crawl,
)
from linkpipe.evaluation.metrics import Metrics, Pair
from linkpipe.evaluation.sites import DEBIAN_SITES, EvalSite, copy_site, ensure_debian_site
from linkpipe.lib.links.scoring_config import ScoringConfig
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import crawl_row, open_db
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

# linkpipe-defaults: the same candidates scored with the configured weights, not the learned ones
METHODS = ("linkpipe", "linkpipe-defaults", "tfidf", "title+tfidf", "cocitation")
COLUMNS: tuple[str, ...] = ("recall@1", "recall@5", "recall@10", "precision@1", "precision@10")
# well_formed: the share of linkpipe's in-sentence anchors that are well-formed phrases;
# in_sentence: the share of linkpipe's suggestions placed in a sentence (the rest: "add one")
COLUMNS += ("anchor_overlap", "repeat_share", "well_formed", "in_sentence")

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def eval_site_of(arg: str, log: Log = _stderr) -> EvalSite:
    """A site from a folder path or one of the names in :data:`DEBIAN_SITES` (installed when
    missing; a folder of that name wins)."""
    if arg in DEBIAN_SITES and not Path(arg).is_dir():
        return ensure_debian_site(arg, log)
    root = Path(arg)
    if not root.is_dir():
        raise FileNotFoundError(f"site folder not found: {root}")
    return EvalSite(root)


def site_root_of(arg: str, log: Log = _stderr) -> Path:
    """The folder of a site given as a path or a name in :data:`DEBIAN_SITES`."""
    return eval_site_of(arg, log).root


def _as_site(site: EvalSite | Path) -> EvalSite:
    return site if isinstance(site, EvalSite) else EvalSite(Path(site))


def prepare_copy(
    site: EvalSite | Path, copy: Path, fraction: float, seed: int
) -> tuple[list[ev.RemovedLink], set[str], set[Pair]]:
    """Copy the site (its kept files and a sitemap) and remove links: (removed links, page paths,
    pairs still linked)."""
    copy_site(_as_site(site), copy)
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
    ) -> tuple[dict[str, Metrics], list[PairReport], dict[str, float]]:
        """:func:`evaluate_crawl` of this seed with ``config``."""
        return evaluate_crawl(self.crawl, self.paths, self.removed, self.html_linked, config)


def load_stored_eval(
    site: EvalSite | Path, db: Path, seed: int, fraction: float, model: str = DEFAULT_MODEL
) -> StoredEval:
    """Crawl ``eval-s<seed>`` already in ``db`` (made with ``model``) with its removal rebuilt
    (it is deterministic), to evaluate again without running the graph, e.g. with other
    scoring weights."""
    crawl_id = f"eval-s{seed}"
    with open_db(db, read_only=True) as con:
        row = crawl_row(con, crawl_id)
    if row is None:
        raise ValueError(f"{db} has no crawl {crawl_id!r}: run `linkpipe eval` first")
    with tempfile.TemporaryDirectory(prefix="linkpipe-eval-") as tmp:
        removed, pages, html_linked = prepare_copy(site, Path(tmp) / "site", fraction, seed)
    crawl = load_crawl(db, crawl_id, model)
    served = urlsplit(row["start_url"])  # the copy's root: the start page may lie deeper
    base_url = f"{served.scheme}://{served.netloc}"
    return StoredEval(crawl, PathMap(base_url, pages), removed, html_linked)


def run_seed(
    site: EvalSite | Path, db: Path, seed: int, fraction: float, model: str, max_pages: int,
    log: Log = _stderr,
) -> dict[str, Any]:  # fmt: skip
    """Remove links with ``seed``, run the graph on the copy (from the site's start page) and
    evaluate; one seed's report."""
    from linkpipe.defs.runner import run_graph
    from linkpipe.lib.stages.crawl_export import register_crawl

    crawl_id = f"eval-s{seed}"
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="linkpipe-eval-") as tmp:
        started = time.perf_counter()
        copy = Path(tmp) / "site"
        removed, pages, html_linked = prepare_copy(site, copy, fraction, seed)
        times["copy_and_remove_s"] = time.perf_counter() - started
        log(f"seed {seed}: removed {len(removed)} links, running the graph as {crawl_id}")
        started = time.perf_counter()
        with serve_site(copy) as served:
            start_url = f"{served.base_url}/{_as_site(site).start}"
            register_crawl(db, crawl_id, start_url, "crawler", "", {"max_pages": max_pages})
            run_graph(db, crawl_id, model, on_step=lambda step: log(f"seed {seed}: {step}"))
        times["pipeline_s"] = time.perf_counter() - started
        started = time.perf_counter()
        crawl = load_crawl(db, crawl_id, model)
        metrics, pairs, counts = evaluate_crawl(
            crawl, PathMap(served.base_url, pages), removed, html_linked
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
    site: EvalSite | Path, seeds: list[int], fraction: float, db: Path, model: str,
    max_pages: int = 10_000, json_path: Path | None = None, log: Log = _stderr,
) -> dict[str, Any]:  # fmt: skip
    """Evaluate every seed, write the JSON report and return it."""
    started, digest = time.perf_counter(), code_digest()
    db.parent.mkdir(parents=True, exist_ok=True)
    site = _as_site(site)
    runs = [run_seed(site, db, s, fraction, model, max_pages, log) for s in seeds]
    report = {
        "site_root": str(site.root),
        "site_include": list(site.include),
        "site_exclude": list(site.exclude),
        "start_page": site.start,
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
            f"({run['removed_pairs']} pairs), {run['truth_pairs']} ground-truth pairs "
            f"(recall@10 ceiling {run.get('recall10_ceiling', 1.0):.3f}: 10 per source), "
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
