"""What a nightly run's process imports before it knows what changed: the runner and the asset
definitions, not the libraries only some runs need (Scrapy and Twisted run in the crawler's own
process, trafilatura extracts changed pages, SciPy's optimizer fits weights, torch embeds new
texts, spaCy parses new anchors). Each costs 0.3-2 CPU-s a process to import."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

LATER = ("scrapy", "twisted", "trafilatura", "scipy.optimize", "torch", "spacy", "sklearn")
SCRIPT = f"""
import json, sys
import linkpipe.defs.runner, linkpipe.definitions
print(json.dumps([m for m in {LATER!r} if m in sys.modules]))
"""


def test_the_runner_imports_no_library_only_some_runs_need() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_helpers_they_used_to_come_with_still_work() -> None:
    from linkpipe.lib.content.extraction import extract_main_content
    from linkpipe.lib.crawl.fetch import looks_like_html
    from linkpipe.lib.links.weights import fit_logistic

    assert looks_like_html("", b"  <!DOCTYPE html><html>") and not looks_like_html("text/css", b"")
    html = "<html><body><article><h1>Layers</h1><p>" + "Masks hide parts of a layer. " * 20
    content = extract_main_content(html + "</p></article></body></html>")
    assert content.error == "" and "Masks hide parts of a layer." in content.text
    x = np.array([[0.1], [0.2], [0.8], [0.9]])
    weights = fit_logistic(x, np.array([False, False, True, True]))
    assert weights.shape == (1,) and weights[0] > 1.0  # the component that separates them
