"""Shared fixtures: the bundled demo site served on loopback, and its expectations."""

import json
from pathlib import Path

import pytest

from linkpipe.lib.static_site import serve_site

DEMO_SITE = Path(__file__).resolve().parents[1] / "linkpipe" / "demo_site"


@pytest.fixture(scope="session")
def demo_expectations() -> dict:
    return json.loads((DEMO_SITE / "expectations.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def demo_site():
    with serve_site(DEMO_SITE) as site:
        yield site


@pytest.fixture(scope="session")
def fake_model() -> str:
    """The hashing embedder's model name: deterministic vectors and nothing to load.

    For tests that run the graph but assert nothing about suggestion quality.
    """
    return "hashing-64"
