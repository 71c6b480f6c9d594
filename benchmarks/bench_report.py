"""Markdown tables, refresh ratios and growth exponents of bench_pipeline.py results (not a
script of its own). A run is ``{"pages": N, "mode": ..., "scenarios": {name: [stage dicts]}}``.
"""

from __future__ import annotations

import math
from typing import Any

FULL, UNCHANGED, EDITED = "full", "refresh_unchanged", "refresh_edited"


def _by_stage(stages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {s["stage"]: s for s in stages}


def _ratio(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole > 0 else None


def refresh_ratios(run: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """CPU of each refresh over the full run's, per stage and for the total."""
    scenarios = run["scenarios"]
    full = _by_stage(scenarios[FULL]) | {"total": run["totals"][FULL]}
    out: dict[str, dict[str, float | None]] = {}
    for name in (UNCHANGED, EDITED):
        if name not in scenarios:
            continue
        refresh = _by_stage(scenarios[name]) | {"total": run["totals"][name]}
        out[name] = {
            stage: _ratio(refresh[stage]["cpu_s"], full[stage]["cpu_s"])
            for stage in full
            if stage in refresh
        }
    return out


def growth_exponents(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """log(cpu2 / cpu1) / log(n2 / n1) of each stage's full-run CPU between consecutive sizes."""
    out = []
    for mode in dict.fromkeys(r["mode"] for r in runs):
        sized = sorted((r for r in runs if r["mode"] == mode), key=lambda r: r["pages"])
        for small, large in zip(sized, sized[1:], strict=False):
            a = _by_stage(small["scenarios"][FULL]) | {"total": small["totals"][FULL]}
            b = _by_stage(large["scenarios"][FULL]) | {"total": large["totals"][FULL]}
            scale = math.log(large["pages"] / small["pages"])
            exponents = {
                stage: round(math.log(b[stage]["cpu_s"] / a[stage]["cpu_s"]) / scale, 2)
                for stage in a
                if stage in b and a[stage]["cpu_s"] > 0.01 and b[stage]["cpu_s"] > 0.01
            }
            out.append(
                {"mode": mode, "from": small["pages"], "to": large["pages"], "exponents": exponents}
            )
    return out


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def run_table(run: dict[str, Any]) -> str:
    """One size and mode: a row per stage, the full run and both refreshes side by side."""
    n = run["pages"]
    ratios = refresh_ratios(run)
    head = (
        "| stage | CPU s | CPU ms/page | wall s | RSS self MiB | RSS tree MiB "
        "| unchanged CPU s | ratio | edited CPU s | ratio |\n|" + "---|" * 10
    )
    lines = [f"### {n:,} pages, {run['mode']} ({run['model']})", "", head]
    full = run["scenarios"][FULL] + [run["totals"][FULL]]
    for stage in full:
        name = stage["stage"]
        cells = [
            f"**{name}**" if name == "total" else name,
            _fmt(stage["cpu_s"]),
            _fmt(1000 * stage["cpu_s"] / n, 2),
            _fmt(stage["wall_s"]),
            _fmt(stage["rss_self_peak_mib"], 0),
            _fmt(stage["rss_tree_peak_mib"], 0),
        ]
        for scenario in (UNCHANGED, EDITED):
            other = _by_stage(run["scenarios"].get(scenario, [])) | (
                {"total": run["totals"][scenario]} if scenario in run["totals"] else {}
            )
            cpu = other[name]["cpu_s"] if name in other else None
            cells += [_fmt(cpu), _fmt(ratios.get(scenario, {}).get(name), 3)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", *model_lines(run)])


def model_lines(run: dict[str, Any]) -> list[str]:
    """Each scenario's CPU in the models (the stages' metadata, ``linkpipe.lib.model_cpu``) and
    what every stage costs a page besides them: all but the embedding model, all but both."""
    n, out = run["pages"], []
    for name, totals in run["totals"].items():
        models = totals.get("models") or {}
        if not models:
            continue
        embedder, parser = models.get("embedder", 0.0), models.get("parser", 0.0)
        rest = totals["cpu_s"] - embedder
        out.append(
            f"* {name}: embedding model {embedder:,.1f} CPU s, parser {parser:,.1f}; all stages"
            f" but the embedding model {1000 * rest / n:,.1f} ms a page, but both models"
            f" {1000 * (rest - parser) / n:,.1f}"
        )
    return out


def growth_table(growth: list[dict[str, Any]]) -> str:
    """Growth exponent of each stage between consecutive sizes."""
    if not growth:
        return ""
    columns = [f"{g['mode']} {g['from']:,}→{g['to']:,}" for g in growth]
    stages = list(dict.fromkeys(s for g in growth for s in g["exponents"]))
    lines = ["### growth exponent of full-run CPU", ""]
    lines += ["| stage | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for stage in stages:
        cells = [_fmt(g["exponents"].get(stage), 2) for g in growth]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
