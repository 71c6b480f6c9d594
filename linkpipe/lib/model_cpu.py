"""The CPU a process spends in its models: the embedding model and the dependency parser that
judges anchors. Each model's work is timed where it runs (:func:`timed`) and a stage reports
what it spent (:func:`since`) in its metadata, so that a run's cost can be read as the models'
floor and the rest (``benchmarks/bench_pipeline.py`` prints both).

The clock is the process's CPU (every thread): a shard worker runs one library thread, so it
is the model's own; in a process running other threads at the same time it counts theirs too.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

EMBEDDER = "embedder"  # the embedding model: summaries and anchor words (its load included)
PARSER = "parser"  # spaCy: the sentences anchors are judged in (its load included)
MODELS = (EMBEDDER, PARSER)

_spent: dict[str, float] = dict.fromkeys(MODELS, 0.0)
_running: set[str] = set()


@contextmanager
def timed(model: str) -> Iterator[None]:
    """Count the process's CPU during the block as ``model``'s (a block inside another of the
    same model counts once)."""
    if model in _running:
        yield
        return
    _running.add(model)
    start = time.process_time()
    try:
        yield
    finally:
        _spent[model] += time.process_time() - start
        _running.discard(model)


def spent() -> dict[str, float]:
    """CPU seconds each model has spent in this process so far."""
    return dict(_spent)


def since(before: Mapping[str, float]) -> dict[str, float]:
    """CPU seconds each model spent since :func:`spent` returned ``before``, as stage metadata
    (``<model>_cpu_s``, to the millisecond)."""
    return {f"{m}_cpu_s": round(_spent[m] - before.get(m, 0.0), 3) for m in MODELS}


def add(elsewhere: Mapping[str, float]) -> None:
    """Count CPU seconds the models spent in another process for this one (a worker's
    :func:`spent` delta, keyed by model): a stage reports its workers' models with its own."""
    for model, seconds in elsewhere.items():
        _spent[model] += seconds
