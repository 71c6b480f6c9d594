"""Freed memory given back to the system.

glibc keeps the heap that a large build freed (fragments of millions of small objects) for
later allocations of the same process: a step that built site models or the shared arrays would
otherwise hold it while the next step, which allocates differently, grows the process further.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc


def return_free_memory() -> None:
    """Collect unreachable cycles, then give the C heap's free pages back to the system
    (``malloc_trim``; nothing to do where the C library is not glibc)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
