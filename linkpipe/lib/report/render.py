"""The report as files: ``index.html`` (Jinja2 template, autoescaped; the filters are plain
JavaScript in the page) and ``plotly.min.js`` beside it, written to a staging folder and moved
into place once complete, so a failure leaves no half-written report."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from linkpipe.lib.exports import is_url_column
from linkpipe.lib.report import charts
from linkpipe.lib.report.build import Report
from linkpipe.lib.report.data import ReportError, Suggestion

INDEX = "index.html"
TEMPLATE = "report.html.j2"


@dataclass(frozen=True)
class Group:
    """The suggestions of one source (or target) page, as the tables group them."""

    url: str
    title: str | None
    rows: list[Suggestion]


def group_suggestions(suggestions: Sequence[Suggestion], by: str) -> list[Group]:
    """Suggestions grouped by ``source`` or ``target`` page, pages in URL order; a source's
    rows by rank, a target's by score, best first."""
    groups: dict[str, Group] = {}
    for s in suggestions:
        url, title = (
            (s.source_url, s.source_title) if by == "source" else (s.target_url, s.target_title)
        )
        groups.setdefault(url, Group(url, title, [])).rows.append(s)
    for group in groups.values():
        group.rows.sort(
            key=lambda s: (s.rank, s.target_url) if by == "source" else (-s.score, s.source_url)
        )
    return [groups[url] for url in sorted(groups)]


def is_link(value: object) -> bool:
    """Whether ``value`` may be an ``href``: an http(s) URL (never ``javascript:``...)."""
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


def cell(value: object) -> str:
    """A table cell's text: empty for NULL, yes/no, floats to 4 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def number(value: float | None) -> str:
    """A score or confidence: three decimals, a dash when missing."""
    return "\u2013" if value is None else f"{value:.3f}"


def chart_divs(report: Report) -> dict[str, Markup | None]:
    """The report's charts as HTML fragments (None where there is nothing to draw)."""
    draw: Callable[..., str] = charts.figure_html
    has_gains = report.inlinks.height > 0 and int(report.inlinks["added"].sum()) > 0
    return {
        "scores": Markup(draw(charts.score_chart(report.suggestions), "chart-scores", 380))
        if report.suggestions
        else None,
        "inlinks": Markup(draw(charts.inlinks_chart(report.inlink_buckets), "chart-inlinks")),
        "gainers": Markup(draw(charts.gainers_chart(report.inlinks), "chart-gainers", 560))
        if has_gains
        else None,
        "clusters": Markup(draw(charts.cluster_chart(report.clusters), "chart-clusters", 600))
        if report.clusters
        else None,
    }


def render_html(report: Report) -> str:
    """The report page (``index.html``)."""
    env = Environment(
        loader=PackageLoader("linkpipe.lib.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.globals.update(is_link=is_link, is_url_column=is_url_column, cell=cell, number=number)
    shown = report.suggestions
    clusters = report.clusters
    return env.get_template(TEMPLATE).render(
        report=report,
        crawl=report.crawl,
        generated_at=report.generated_at,
        version=_version(),
        shown=len(shown),
        by_source=group_suggestions(shown, "source"),
        by_target=group_suggestions(shown, "target"),
        source_types=sorted({s.source_type for s in shown if s.source_type}),
        target_types=sorted({s.target_type for s in shown if s.target_type}),
        placements=sorted({s.placement for s in shown if s.placement}),
        cluster_count=clusters.points["cluster_id"].n_unique() if clusters else 0,
        charts=chart_divs(report),
        plotly_js=charts.PLOTLY_JS,
        css=Markup(_asset("report.css")),
        js=Markup(_asset("report.js")),
    )


def write_report(report: Report, out: Path) -> list[Path]:
    """Write the report into the folder ``out`` (created, or its report files replaced);
    the files written."""
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} is a file: give a folder for the report")
    texts = {INDEX: render_html(report), charts.PLOTLY_JS: charts.plotly_js()}
    target = out.resolve()
    stage = target.with_name(f".{target.name}.partial")
    shutil.rmtree(stage, ignore_errors=True)
    try:
        stage.mkdir(parents=True)
        for name, text in texts.items():
            (stage / name).write_text(text, encoding="utf-8")
        if not target.exists():
            stage.rename(target)
        else:
            for name in texts:
                (stage / name).replace(target / name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [out / name for name in texts]


def _asset(name: str) -> str:
    """A file of ``templates/`` (the page's CSS or script)."""
    return files("linkpipe.lib.report").joinpath("templates", name).read_text(encoding="utf-8")


def _version() -> str:
    """The installed linkpipe version."""
    try:
        return version("linkpipe")
    except PackageNotFoundError:
        return "unknown"
