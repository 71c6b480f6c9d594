"""`linkpipe eval`: how well linkpipe recovers links removed from a real static site.

For each seed: copy the site, remove a seeded share of its in-content links (see
:mod:`linkpipe.evaluation.link_removal`), serve the copy on 127.0.0.1, run the whole graph into crawl
partition ``eval-s<seed>`` of one DuckDB file, rank linkpipe's suggestions with the product's own
scoring (only the list per source is 10 long and targets are uncapped), and score them and three
baselines computed on the same indexable pages against the removed links.
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
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linkpipe.evaluation import baselines
from linkpipe.evaluation import link_removal as ev
from linkpipe.lib.links.scoring import PageFacts, ScoringConfig, score_opportunities
from linkpipe.lib.stages.link_opportunities import load_page_facts
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import crawl_row, fetch_dicts, open_db

DEBIAN_SITES = {
    "gimp": ("gimp-help-en", Path("/usr/share/gimp/2.0/help/en")),
    "django": ("python-django-doc", Path("/usr/share/doc/python-django-doc/html")),
}
METHODS = ("linkpipe", "tfidf", "title+tfidf", "cocitation")
COLUMNS = ("recall@1", "recall@5", "recall@10", "precision@10", "anchor_overlap", "repeat_share")
EVAL_SCORING = ScoringConfig(max_per_source=10, max_per_target=10**6)

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


def linkpipe_rankings(
    candidates: list[dict[str, Any]],
    facts: dict[str, PageFacts],
    config: ScoringConfig | None = None,
) -> ev.Rankings:
    """linkpipe's suggestions per source, best first, with the product's scoring (the list per
    source 10 long and targets uncapped unless ``config`` says otherwise)."""
    rows, _ = score_opportunities(candidates, facts, {}, config or EVAL_SCORING)
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source_url"]].append(row)
    return {
        s: [(r["target_url"], r["anchor_text"]) for r in sorted(group, key=lambda r: r["rank"])]
        for s, group in by_source.items()
    }


def load_crawl(db: Path, crawl_id: str) -> dict[str, Any]:
    """What the evaluation reads from a crawl partition (URL-keyed)."""
    with open_db(db) as con:
        facts = load_page_facts(con, crawl_id)
        summaries = fetch_dicts(con, "read/select_site_pages_for_candidates", [crawl_id])
        edges = fetch_dicts(con, "read/select_content_edges", [crawl_id])
        candidates = fetch_dicts(con, "read/select_candidates_for_crawl", [crawl_id])
    content: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e["position"] == "content":
            content[e["source_url"]].add(e["resolved_url"])
    texts = {s["url"]: s["main_text"] or "" for s in summaries if s["url"] in facts}
    return {"facts": facts, "texts": texts, "content": content, "candidates": candidates}


class PathMap:
    """URL -> page path of one served copy (``dir/`` and ``dir/index.html`` are one page)."""

    def __init__(self, base_url: str, pages: set[str]) -> None:
        self.base_url, self.pages = base_url, pages
        self.cache: dict[str, str | None] = {}

    def __call__(self, url: str) -> str | None:
        if url not in self.cache:
            self.cache[url] = ev.url_to_path(url, self.base_url, self.pages)
        return self.cache[url]

    def rankings(self, rankings: ev.Rankings) -> ev.Rankings:
        """Rankings re-keyed by page path (URLs outside the copy dropped)."""
        out: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
        for source, items in rankings.items():
            s = self(source)
            if s is not None:
                out[s] += [(t, a) for t, a in ((self(t), a) for t, a in items) if t is not None]
        return dict(out)


def evaluate_crawl(
    crawl: dict[str, Any],
    paths: PathMap,
    removed: list[ev.RemovedLink],
    html_linked: set,
    config: ScoringConfig | None = None,
) -> tuple[dict[str, dict], list[dict[str, Any]], dict[str, int]]:
    """(metrics per method, one row per ground-truth pair, counts) for one crawl."""
    to_path = {u: paths(u) for u in crawl["facts"]}
    indexable = {p for p in to_path.values() if p}
    texts = {to_path[u]: t for u, t in crawl["texts"].items() if to_path.get(u)}
    titles = {to_path[u]: f.title for u, f in crawl["facts"].items() if to_path.get(u)}
    links: dict[str, set[str]] = defaultdict(set)
    for src, targets in crawl["content"].items():
        if (s := paths(src)) is not None:
            links[s] |= {t for t in map(paths, targets) if t and t != s}
    pipeline_linked = {(s, t) for s, ts in links.items() for t in ts}
    still_linked = html_linked | pipeline_linked
    truth = ev.ground_truth(removed, still_linked, indexable)
    rankings = {
        "linkpipe": paths.rankings(linkpipe_rankings(crawl["candidates"], crawl["facts"], config)),
        "tfidf": baselines.tfidf_baseline(texts, pipeline_linked),
        "title+tfidf": baselines.title_tfidf_baseline(texts, titles, pipeline_linked),
        "cocitation": baselines.cocitation_baseline(links, indexable, pipeline_linked),
    }
    metrics = {
        m: ev.evaluate_rankings(r, truth, still_linked, with_anchors=m == "linkpipe")
        for m, r in rankings.items()
    }
    candidates = {(paths(c["source_url"]), paths(c["target_url"])) for c in crawl["candidates"]}
    rows = []
    for (s, t), link_texts in sorted(truth.items()):
        row: dict[str, Any] = {"source": s, "target": t, "link_texts": link_texts}
        for method, ranked in rankings.items():
            targets = [x for x, _ in ranked.get(s, [])]
            row[method] = targets.index(t) + 1 if t in targets else None
        hit = [a for x, a in rankings["linkpipe"].get(s, []) if x == t]
        row["linkpipe_anchor"] = hit[0] if hit else None
        row["in_candidates"] = (s, t) in candidates
        rows.append(row)
    removed_pairs = {(r.source, r.target) for r in removed}
    counts = {
        "removed_links": len(removed),
        "removed_pairs": len(removed_pairs),
        "still_linked_pairs": len(removed_pairs & still_linked),
        "truth_pairs": len(truth),
        "indexable_pages": len(indexable),
    }
    return metrics, rows, counts


def prepare_copy(
    site_root: Path, copy: Path, fraction: float, seed: int
) -> tuple[list[ev.RemovedLink], set[str], set[ev.Pair]]:
    """Copy the site and remove links: (removed links, page paths, pairs still linked)."""
    copy_site(site_root, copy)
    removed = ev.remove_links(copy, fraction, seed)
    pages = ev.html_pages(copy)
    return removed, pages, ev.content_link_pairs(copy, pages)


@dataclass
class StoredEval:
    """A seed's stored crawl and its ground truth, ready to be scored with any config."""

    crawl: dict[str, Any]
    paths: PathMap
    removed: list[ev.RemovedLink]
    html_linked: set[ev.Pair]

    def evaluate(
        self, config: ScoringConfig | None = None
    ) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], dict[str, int]]:
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
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha1()
    for path in sorted([*package.rglob("*.py"), *(package.parent / "sql").rglob("*.sql")]):
        digest.update(path.relative_to(package.parent).as_posix().encode() + path.read_bytes())
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
