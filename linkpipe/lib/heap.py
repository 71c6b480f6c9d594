"""Freed memory given back to the system.

glibc keeps the heap that a large build freed (fragments of millions of small objects) for
later allocations of the same process: a step that built site models or the shared arrays would
otherwise hold it while the next step, which allocates differently, grows the process further.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
from collections.abc import Iterator

_OPEN = [0]  # long_lived_heap blocks open in this process (gc.get_freeze_count walks the
# frozen objects one by one: ~30 ms a call in a runner holding Dagster, torch and spaCy)


def return_free_memory(step_done: bool = False) -> None:
    """Collect unreachable cycles, then give the C heap's free pages back to the system
    (``malloc_trim``; nothing to do where the C library is not glibc). ``step_done``, inside
    :func:`long_lived_heap`: what survived the step is frozen with what was alive at the
    block's start, so the next step's collection walks only what that step made (each step's
    collection otherwise walked every earlier step's survivors again)."""
    gc.collect()
    if step_done and _OPEN[0]:
        gc.freeze()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


@contextlib.contextmanager
def long_lived_heap() -> Iterator[None]:
    """Inside the block the objects alive at its start (imported modules, the Dagster instance)
    are out of the cyclic collector's reach (``gc.freeze``): the collection at each step's end
    (and any the collector starts by itself) walks what was made since, not the whole heap of a
    process that imported Dagster, torch and spaCy (~0.2 CPU-s a collection)."""
    gc.collect()
    gc.freeze()
    _OPEN[0] += 1
    try:
        yield
    finally:
        _OPEN[0] -= 1
        gc.unfreeze()
