"""Stop requests (Ctrl-C, SIGTERM) that no library in the process can swallow.

While Dagster executes a run in this process it replaces the SIGINT and SIGTERM handlers with
one that only sets a flag; the flag is checked inside an asset's code and cleared when the run
ends, so a signal that arrives while Dagster records events or sets a run up is lost and the
pipeline goes on. Python's C-level handler also writes each signal's number to the wakeup file
descriptor, whichever Python handler is installed: a thread reading it remembers every stop
request, and the pipeline checks :func:`raise_if_requested` between its steps and before it
publishes a crawl.

When Dagster gives the handlers back it sets SIGTERM's to SIGINT's. A process started with
SIGINT ignored (a background job of a script, some schedulers) would then ignore SIGTERM too,
with no byte on the wakeup fd: ``kill PID`` did nothing after the first step. Such a process
gets a Python handler for SIGINT that still ignores SIGINT but stops on SIGTERM, so SIGTERM
stays handled (and remembered) whichever of the two handlers Dagster leaves it.
"""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
_requested = threading.Event()
_stops: set[int] = set(STOP_SIGNALS)  # the signals that stop this process (SIGINT ignored: not)


def watch() -> Callable[[], None]:
    """Make SIGTERM (``kill PID``) stop as Ctrl-C does and remember every stop request (call
    from the main thread); return the function that undoes both. Outside the main thread,
    where signals cannot be handled, nothing is changed."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    previous_int = signal.getsignal(signal.SIGINT)
    if previous_int == signal.SIG_IGN:
        _stops.discard(signal.SIGINT)
        signal.signal(signal.SIGINT, _interrupt)  # still ignores SIGINT (see the module's text)
    previous_term = signal.signal(signal.SIGTERM, _interrupt)
    threading.Thread(target=_read, args=(reader,), name="linkpipe-stop", daemon=True).start()

    def undo() -> None:
        signal.set_wakeup_fd(previous_fd)
        for sig, handler in ((signal.SIGTERM, previous_term), (signal.SIGINT, previous_int)):
            if handler is not None:
                signal.signal(sig, handler)
        writer.close()  # the reading thread sees the end and closes its side
        _stops.update(STOP_SIGNALS)
        _requested.clear()
        _forget_handled_interrupt()

    return undo


def _forget_handled_interrupt() -> None:
    """Clear CPython's record of a KeyboardInterrupt raised inside ``exec`` of a string (a
    signal handler's, while a dataclass or named tuple was being made): the interpreter keeps
    it after the exception was handled, and a process started with ``python -m`` then kills
    itself with SIGINT at exit whatever status it returned (3.11; the exit that bpo-41602
    gave an interrupt escaping ``-m``). Each ``exec`` of a string clears it first."""
    exec("")  # noqa: S102  (an empty string: nothing runs)


def requested() -> bool:
    """Whether Ctrl-C or SIGTERM came since :func:`watch`."""
    return _requested.is_set()


def raise_if_requested() -> None:
    """Raise KeyboardInterrupt when a stop was requested (whoever handled the signal)."""
    if _requested.is_set():
        raise KeyboardInterrupt


def _read(reader: socket.socket) -> None:
    """Remember a stop request for each stopping signal's number written to the wakeup fd."""
    with reader:
        while data := reader.recv(64):
            if _stops.intersection(data):
                _requested.set()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """Handler of SIGTERM (and of SIGINT when the process was started ignoring it): stop as
    Ctrl-C does, unless the signal is one this process ignores."""
    if signum in _stops:
        raise KeyboardInterrupt
