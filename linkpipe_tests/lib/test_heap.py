"""Freed heap given back to the system (``lib/heap.py``), measured in a fresh process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# 300 MB of 1,000-byte strings (above pymalloc's 512 bytes: glibc's heap), one in a hundred
# kept: the free chunks lie between live ones, so glibc cannot give them back by itself.
SCRIPT = """
import os
from linkpipe.lib.heap import return_free_memory

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

held = [("x" * 950) + str(i) for i in range(300_000)]
kept = held[::100]
del held
before = rss_mib()
return_free_memory()
print(before, rss_mib(), len(kept))
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc (Linux)")
def test_freed_heap_between_live_objects_is_given_back() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    before, after, kept = float(out[0]), float(out[1]), int(out[2])
    assert kept == 3_000
    assert before > 250  # the freed strings still held by the process
    assert after < before - 200  # given back: ~300 MB of them
