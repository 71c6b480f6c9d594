"""Dagster's capture of a run's stdout and stderr, mirrored by a thread instead of processes.

Dagster's ``LocalComputeLogManager`` sends a run's stdout and stderr into files (what the UI
shows for the run) and mirrors each file to the terminal with a ``tail -F`` process watched by
a Python process of its own: four processes for every run (~0.12 CPU-s a run on this machine,
and a refresh is eleven runs: docs/benchmarks.md). This manager writes the same files, read
the same way by the UI, and mirrors them with one thread per stream in the run's own process.
Output written after the capture ends (by a process the run started and left running) stays
in the file, as with ``tail``, which is stopped then too. It uses Dagster's own capture
helpers, private names of the 1.13 line that ``dagster-duckdb`` 0.29 pins
(``test_compute_logs.py`` fails when they move).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import threading
from collections.abc import Generator, Iterator, Mapping, Sequence
from typing import IO, Any

import dagster as dg
from dagster._core.execution.compute_logs import redirect_to_file
from dagster._core.storage.compute_log_manager import CapturedLogContext, ComputeIOType
from dagster._core.storage.local_compute_log_manager import (
    IO_TYPE_EXTENSION,
    LocalComputeLogManager,
)
from dagster._serdes import ConfigurableClassData
from dagster._utils import ensure_file, touch_file

MIRROR_POLL_S = 0.2  # how often a mirror looks for new output (tail -F: about a second)


class MirroredComputeLogManager(LocalComputeLogManager):
    """``LocalComputeLogManager`` (files under ``base_dir``, by default ``$DAGSTER_HOME/storage``
    as Dagster's default) mirroring the captured output to the terminal from a thread."""

    def __init__(
        self,
        base_dir: str | None = None,
        polling_timeout: float | None = None,
        inst_data: ConfigurableClassData | None = None,
    ) -> None:
        home = os.environ.get("DAGSTER_HOME") or os.getcwd()
        super().__init__(base_dir or os.path.join(home, "storage"), polling_timeout, inst_data)

    @classmethod
    def config_type(cls) -> dict[str, dg.Field]:
        return {
            "base_dir": dg.Field(dg.StringSource, is_required=False),
            "polling_timeout": dg.Field(dg.Float, is_required=False),
        }

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData | None, config_value: Mapping[str, Any]
    ) -> MirroredComputeLogManager:
        return cls(inst_data=inst_data, **config_value)

    @contextlib.contextmanager
    def capture_logs(self, log_key: Sequence[str]) -> Generator[CapturedLogContext, None, None]:
        """The run's stdout and stderr into their files, mirrored to where they went before."""
        out = self.get_captured_local_path(log_key, IO_TYPE_EXTENSION[ComputeIOType.STDOUT])
        err = self.get_captured_local_path(log_key, IO_TYPE_EXTENSION[ComputeIOType.STDERR])
        with mirrored(sys.stdout, out), mirrored(sys.stderr, err):
            yield CapturedLogContext(log_key)
        complete: str = self.complete_artifact_path(log_key)  # type: ignore[no-untyped-call]
        touch_file(complete)  # the capture is complete


@contextlib.contextmanager
def mirrored(stream: IO[str], path: str) -> Iterator[None]:
    """``stream``'s file descriptor sent into the file ``path`` (output of this process and of
    the processes it starts), what arrives there copied to where the descriptor pointed
    before by a thread; a stream without a descriptor is left as it is."""
    ensure_file(path)
    fd = _fileno(stream)
    if fd is None:
        yield
        return
    mirror = _Mirror(path, os.dup(fd))
    mirror.start()
    try:
        with redirect_to_file(stream, path):
            yield
    finally:
        mirror.finish()


class _Mirror(threading.Thread):
    """Copies what is appended to a file to a descriptor (closed when finished)."""

    def __init__(self, path: str, out_fd: int) -> None:
        super().__init__(daemon=True, name="linkpipe-log-mirror")
        self.path, self.out_fd, self.owned_fd = path, out_fd, out_fd
        self.done = threading.Event()

    def run(self) -> None:
        with open(self.path, "rb") as source:
            while not self.done.wait(MIRROR_POLL_S):
                self._copy(source)
            self._copy(source)  # what came before the capture ended

    def _copy(self, source: IO[bytes]) -> None:
        while self.out_fd >= 0 and (chunk := source.read(65536)):
            try:
                while chunk:
                    chunk = chunk[os.write(self.out_fd, chunk) :]
            except OSError as exc:  # the terminal went away: the file still has it all
                if exc.errno not in (errno.EPIPE, errno.EBADF, errno.EIO):
                    raise
                self.out_fd = -1

    def finish(self) -> None:
        """Copy what is left, then stop and close the descriptor."""
        self.done.set()
        self.join()
        os.close(self.owned_fd)


def _fileno(stream: IO[str]) -> int | None:
    """The stream's file descriptor, None when it has none (a test's captured stream)."""
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
