"""The parser's loading: spaCy without PyTorch, the same parses."""

import subprocess
import sys

import pytest

from linkpipe.lib.text.parsing import installed_pipeline

SCRIPT = """
import sys
if sys.argv[1] == "torch-first":
    import torch
from linkpipe.lib.text.parsing import load_parser
parser = load_parser()
print("torch" in sys.modules)
print(repr(parser.parse("Use the layer mask dialog to paint transparency onto the layer.")))
import torch  # importable all the same
print(torch.__name__)
"""


def _run(mode: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


@pytest.mark.skipif(installed_pipeline() is None, reason="no spaCy pipeline installed")
def test_the_parser_loads_without_pytorch_and_parses_the_same() -> None:
    plain, torch_first = _run("plain"), _run("torch-first")
    assert plain[0] == "False" and torch_first[0] == "True"
    assert plain[1] == torch_first[1] and "NOUN" in plain[1]
    assert plain[2] == torch_first[2] == "torch"
