"""The report's charts, drawn by plotly: each one a ``<div>`` and the script that draws it with
the plotly.js written once into the report folder (:data:`PLOTLY_JS`), so the page opens from
``file://`` with no server and no internet. Text shown by plotly (titles, URLs, labels) is
HTML-escaped: plotly reads a few tags in text, and page titles come from crawled pages."""

from __future__ import annotations

import html
from collections.abc import Sequence

import plotly.graph_objects as go
import plotly.io as pio
import polars as pl
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from linkpipe.lib.report.data import Suggestion
from linkpipe.lib.report.figures import ClusterMap

PLOTLY_JS = "plotly.min.js"
CONFIG = {"displaylogo": False, "responsive": True}
TEMPLATE = "plotly_white"
TOP_GAINERS = 20
WEBGL_ABOVE = 3_000  # points; fewer are drawn as SVG


def plotly_js() -> str:
    """The plotly.js bundle the charts need, written beside the page as :data:`PLOTLY_JS`."""
    text: str = get_plotlyjs()
    return text


def figure_html(fig: go.Figure, div_id: str, height: int = 420) -> str:
    """``fig`` as a ``<div id=div_id>`` and its drawing script (plotly.js loaded by the page)."""
    fig.update_layout(template=TEMPLATE, margin={"l": 60, "r": 20, "t": 50, "b": 50})
    text: str = pio.to_html(
        fig,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config=CONFIG,
        default_height=f"{height}px",
    )
    return text


def score_chart(suggestions: Sequence[Suggestion]) -> go.Figure:
    """Histograms of the shown suggestions' score and confidence, side by side."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("score", "confidence (0..1)"))
    fig.add_trace(
        go.Histogram(x=[s.score for s in suggestions], nbinsx=30, name="score"), row=1, col=1
    )
    confidence = [s.confidence for s in suggestions if s.confidence is not None]
    fig.add_trace(
        go.Histogram(x=confidence, xbins={"start": 0, "end": 1, "size": 0.05}, name="confidence"),
        row=1,
        col=2,
    )
    fig.update_yaxes(title_text="suggestions", row=1, col=1)
    fig.update_xaxes(range=[0, 1], row=1, col=2)
    fig.update_layout(showlegend=False, bargap=0.05)
    return fig


def inlinks_chart(buckets: Sequence[tuple[str, int, int]]) -> go.Figure:
    """Indexable pages by unique content inlinks, now and with the shown suggestions."""
    labels = [label for label, _, _ in buckets]
    fig = go.Figure(
        [
            go.Bar(x=labels, y=[b for _, b, _ in buckets], name="now"),
            go.Bar(x=labels, y=[a for _, _, a in buckets], name="with the suggestions"),
        ]
    )
    fig.update_layout(
        barmode="group",
        xaxis_title="unique content inlinks",
        yaxis_title="indexable pages",
        legend={"orientation": "h", "y": 1.1},
    )
    return fig


def gainers_chart(inlinks: pl.DataFrame, top: int = TOP_GAINERS) -> go.Figure:
    """The pages the shown suggestions would give most content inlinks: now + added."""
    best = (
        inlinks.filter(pl.col("added") > 0)
        .sort(["added", "url"], descending=[True, False])
        .head(top)[::-1]
    )
    urls = best["url"].to_list()
    names = [_short(title or url) for title, url in best.select("title", "url").iter_rows()]
    hover = [html.escape(url) for url in urls]
    fig = go.Figure(
        [
            go.Bar(y=urls, x=best["before"].to_list(), name="now", orientation="h",
                   hovertext=hover),
            go.Bar(y=urls, x=best["added"].to_list(), name="suggested", orientation="h",
                   hovertext=hover),
        ]
    )  # fmt: skip
    fig.update_yaxes(tickmode="array", tickvals=urls, ticktext=names)
    fig.update_layout(
        barmode="stack",
        xaxis_title="unique content inlinks",
        legend={"orientation": "h", "y": 1.08, "traceorder": "normal"},
    )
    return fig


def cluster_chart(cluster_map: ClusterMap) -> go.Figure:
    """The pages on the first two principal components of their vectors, one colour per
    topic cluster; bridge pages (close to a second cluster too) drawn as diamonds."""
    points = cluster_map.points
    scatter = go.Scattergl if points.height > WEBGL_ABOVE else go.Scatter
    fig = go.Figure()
    for (cluster_id,), group in points.group_by(["cluster_id"], maintain_order=True):
        label = group["cluster_label"][0] or f"cluster {cluster_id}"
        hover = [
            f"{html.escape(title or '')}<br>{html.escape(url)}"
            for title, url in group.select("title", "url").iter_rows()
        ]
        symbols = ["diamond" if bridge else "circle" for bridge in group["is_bridge"]]
        fig.add_trace(
            scatter(
                x=group["x"].to_list(),
                y=group["y"].to_list(),
                mode="markers",
                name=html.escape(f"{cluster_id}: {label} ({group.height})"),
                hovertext=hover,
                hoverinfo="text",
                marker={"symbol": symbols, "size": 9, "opacity": 0.8},
            )
        )
    first, second = cluster_map.explained
    fig.update_layout(
        xaxis_title=f"first principal component ({first:.0%} of variance)",
        yaxis_title=f"second principal component ({second:.0%})",
        legend_title_text="topic cluster",
    )
    return fig


def _short(text: str, limit: int = 60) -> str:
    """``text`` escaped for plotly and cut to ``limit`` characters."""
    cut = text if len(text) <= limit else text[: limit - 1] + "\u2026"
    return html.escape(cut)
