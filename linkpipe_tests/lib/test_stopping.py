"""Stop requests are remembered whichever handler the process has when the signal comes."""

from __future__ import annotations

import os
import signal
import time

import pytest

from linkpipe.lib import stopping


@pytest.fixture(autouse=True)
def _sigint_handled():
    """Python's own SIGINT handler for each test, whatever the test process was started with
    (a process started ignoring SIGINT does not count it as a stop request)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _wait_requested(within_s: float = 2.0) -> bool:
    deadline = time.monotonic() + within_s
    while not stopping.requested() and time.monotonic() < deadline:
        time.sleep(0.01)
    return stopping.requested()


def test_sigterm_stops_as_ctrl_c_does_and_undo_restores_the_handler():
    before = signal.getsignal(signal.SIGTERM)
    undo = stopping.watch()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1.0)  # the handler runs at the next bytecode
        assert _wait_requested()
        with pytest.raises(KeyboardInterrupt):
            stopping.raise_if_requested()
    finally:
        undo()
    assert signal.getsignal(signal.SIGTERM) == before
    assert not stopping.requested()
    stopping.raise_if_requested()  # nothing to raise once undone


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_swallowed_by_another_handler_is_still_remembered(sig):
    """Dagster, while it runs a job in the process, handles both signals by setting a flag it
    later clears; the request must survive that."""
    undo = stopping.watch()
    swallowed: list[int] = []
    previous = signal.signal(sig, lambda signum, frame: swallowed.append(signum))
    try:
        assert not stopping.requested()
        os.kill(os.getpid(), sig)
        assert _wait_requested()
        assert swallowed == [sig]
        with pytest.raises(KeyboardInterrupt):
            stopping.raise_if_requested()
    finally:
        signal.signal(sig, previous)
        undo()


def test_a_process_started_ignoring_sigint_stops_on_sigterm_after_a_dagster_run():
    """Dagster gives SIGTERM SIGINT's handler back when it ends a run: with SIGINT ignored
    from the start (a script's background job), SIGTERM was then ignored and lost."""
    from dagster._utils.interrupts import capture_interrupts

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        undo = stopping.watch()
        try:
            with capture_interrupts():  # what Dagster does around a run in this process
                pass
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)
            assert not stopping.requested()  # SIGINT is still ignored
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1.0)
            assert _wait_requested()
        finally:
            undo()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        assert not stopping.requested()
    finally:
        signal.signal(signal.SIGINT, before)


def test_other_signals_are_not_stop_requests():
    undo = stopping.watch()
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: None)
    try:
        os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(0.3)
        assert not stopping.requested()
    finally:
        signal.signal(signal.SIGUSR1, previous)
        undo()


STOPPED_MODULE = """
import argparse, sys
import linkpipe.cli.main as cli
from linkpipe.cli.errors import user_facing_errors

user_facing_errors()  # imported before the stop, as in a run past its first step

def _parser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--debug", action="store_true")
    parser.set_defaults(func=lambda args: exec("raise KeyboardInterrupt"))
    return parser

cli.build_parser = _parser
sys.exit(cli.main([]))
"""


def test_a_stop_raised_inside_exec_still_exits_130_under_python_m(tmp_path):
    """A signal handler's KeyboardInterrupt that lands in ``exec`` of a string (a dataclass
    being made) is handled by ``linkpipe`` (exit 130), but CPython remembered it and killed a
    ``python -m`` process with SIGINT at exit (return code -2: the crash-safety test's flake
    under load). Any ``exec`` before the exit clears that record (making a dataclass, as the
    first import of the CLI's error types does): the module imports them before the stop."""
    import subprocess
    import sys
    from pathlib import Path

    import linkpipe

    (tmp_path / "stopped_run.py").write_text(STOPPED_MODULE, encoding="utf-8")
    root = str(Path(linkpipe.__file__).resolve().parent.parent)
    proc = subprocess.run(
        [sys.executable, "-m", "stopped_run"],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": root},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (proc.returncode, proc.stderr) == (130, "linkpipe: interrupted\n")
