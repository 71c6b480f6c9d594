"""The models' CPU tally that stages report in their metadata."""

import time

from linkpipe.lib import model_cpu


def _burn(seconds: float) -> None:
    start = time.process_time()
    while time.process_time() - start < seconds:
        sum(i * i for i in range(1000))


def test_a_block_counts_its_cpu_for_its_model_and_nested_blocks_count_once() -> None:
    before = model_cpu.spent()
    with model_cpu.timed(model_cpu.PARSER):
        _burn(0.05)
        with model_cpu.timed(model_cpu.PARSER):  # a parse inside a parse: counted once
            _burn(0.05)
    _burn(0.05)  # outside every block: no model's
    spent = model_cpu.since(before)
    assert set(spent) == {"embedder_cpu_s", "parser_cpu_s"}
    assert 0.1 <= spent["parser_cpu_s"] < 0.15
    assert spent["embedder_cpu_s"] == 0.0
    with model_cpu.timed(model_cpu.EMBEDDER):
        _burn(0.02)
    later = model_cpu.since(before)
    assert later["parser_cpu_s"] == spent["parser_cpu_s"] and later["embedder_cpu_s"] >= 0.02


def test_an_error_inside_a_block_still_counts_and_leaves_the_block() -> None:
    before = model_cpu.spent()
    try:
        with model_cpu.timed(model_cpu.EMBEDDER):
            _burn(0.02)
            raise RuntimeError("model failed")
    except RuntimeError:
        pass
    with model_cpu.timed(model_cpu.EMBEDDER):  # not taken for a nested block
        _burn(0.02)
    assert model_cpu.since(before)["embedder_cpu_s"] >= 0.04
