"""The frozen heap of a run (``lib/heap.long_lived_heap``): objects alive when a run starts
are left out of each step's collection; garbage made during the run is still collected."""

from __future__ import annotations

import gc
import weakref

from linkpipe.lib.heap import long_lived_heap, return_free_memory


class Node:
    """An object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A two-node cycle no name refers to (only the cyclic collector frees it)."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_objects_alive_at_the_start_are_frozen_and_thawed_after() -> None:
    before = [Node() for _ in range(1_000)]
    with long_lived_heap():
        assert gc.get_freeze_count() >= len(before)
    assert gc.get_freeze_count() == 0  # back in the collector's reach


def test_a_cycle_made_during_the_run_is_still_collected() -> None:
    with long_lived_heap():
        gone = cycle()
        assert gone() is not None
        gc.collect()
        assert gone() is None


def test_a_cycle_from_before_the_run_is_collected_at_its_start() -> None:
    gone = cycle()
    with long_lived_heap():
        assert gone() is None  # collected before the freeze, not frozen for the run


def test_what_a_step_leaves_alive_is_frozen_at_its_end_and_collected_after_the_run() -> None:
    with long_lived_heap():
        frozen = gc.get_freeze_count()
        kept = [Node() for _ in range(1_000)]  # what the step holds when it ends
        held = cycle()
        anchor = held()  # the cycle is alive at the step's end...
        return_free_memory(step_done=True)
        assert gc.get_freeze_count() >= frozen + len(kept)  # left out of later collections
        del anchor  # ...and becomes garbage in a later step: left for the run's end
        gc.collect()
        assert held() is not None
        return_free_memory()  # a collection inside a step freezes nothing
        assert gc.get_freeze_count() >= frozen + len(kept)
    gc.collect()
    assert held() is None and gc.get_freeze_count() == 0  # the run's end: back in reach


def test_outside_a_run_nothing_is_frozen() -> None:
    return_free_memory(step_done=True)
    assert gc.get_freeze_count() == 0
