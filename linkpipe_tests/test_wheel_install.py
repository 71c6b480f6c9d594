"""A built wheel installs like a library: its SQL and the demo site are package data.

The slow test builds the wheel offline, installs it into a fresh virtualenv that reuses this
interpreter's packages (torch, Dagster...) and runs the installed console script, from a folder
outside the checkout so that nothing is imported from the working tree.
"""

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = "Scripts" if os.name == "nt" else "bin"
FIXTURE = ROOT / "linkpipe_tests" / "lib" / "importers" / "fixtures" / "screaming_frog"


def test_pyproject_lists_every_package():
    """pyproject.toml names its packages (sql/ maps to linkpipe.sql): a new one must be added."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "linkpipe").rglob("__init__.py")
    }
    assert set(config["setuptools"]["packages"]) == on_disk | {"linkpipe.sql"}
    assert config["setuptools"]["package-dir"] == {"linkpipe.sql": "sql"}
    assert (ROOT / "sql" / "__init__.py").is_file()  # the editable install needs a real package


def run(command: list[str | Path], cwd: Path, timeout: int) -> str:
    """Run a command outside the checkout without PYTHONPATH; its stdout, or fail with stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["LINKPIPE_MODEL"] = "hashing-64"
    out = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.returncode == 0, f"{command}\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    return out.stdout


def build_wheel(tmp_path: Path) -> Path:
    """The wheel built offline from a copy of the sources (no build/ left in the checkout)."""
    source = tmp_path / "source"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("linkpipe", "sql"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dist, source],
        tmp_path, 240)  # fmt: skip
    (wheel,) = dist.glob("linkpipe-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_virtualenv_and_runs(tmp_path: Path):
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv],
        tmp_path, 120)  # fmt: skip
    python, linkpipe = venv / VENV_BIN / "python", venv / VENV_BIN / "linkpipe"
    run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", wheel],
        tmp_path, 240)  # fmt: skip
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = run([python, "-c", WHERE_FROM], work, 120).splitlines()
    site = Path(where[0]).parents[1]  # site-packages
    assert site.is_relative_to(venv) and not site.is_relative_to(ROOT), where
    assert [Path(p).relative_to(site).as_posix() for p in where[1:]] == [
        "linkpipe/sql",
        "linkpipe/demo_site",
    ]
    assert run([linkpipe, "--version"], work, 120).strip() == "linkpipe 0.1.0"
    assert run([linkpipe, "demo", "--help"], work, 120).startswith("usage: linkpipe demo ")
    # the installed package runs the crawl steps of the graph on an import, with its own SQL,
    # and its console script queries an analysts' view
    db = work / "site.duckdb"
    run([linkpipe, "import", FIXTURE, "--db", db, "--no-graph", "--crawl-id", "sf-1"], work, 300)
    query = "SELECT crawl_id, url, reason FROM v_excluded_pages_all ORDER BY url"
    rows = run([linkpipe, "sql", "--db", db, "--format", "csv", query], work, 120).splitlines()
    assert rows == [
        "crawl_id,url,reason",
        "sf-1,https://www.example.com/blog/internal-linking-guide/?print=1,parameter_duplicate",
        "sf-1,https://www.example.com/cart/,robots_disallowed",
        "sf-1,https://www.example.com/images/team.jpg,non_html",
        "sf-1,https://www.example.com/missing-page,http_404",
        "sf-1,https://www.example.com/old-pricing,redirect",
        "sf-1,https://www.example.com/thank-you/,noindex",
    ]


WHERE_FROM = """
import linkpipe
from linkpipe.cli.pipeline import DEMO_SITE
from linkpipe.lib import storage
print(linkpipe.__file__)
print(storage.SQL_DIR)
print(DEMO_SITE)
assert (DEMO_SITE / "index.html").is_file() and (DEMO_SITE / "_routes.json").is_file()
assert storage.load_sql("schema/views").count("CREATE OR REPLACE VIEW") >= 5
"""
