"""A stage's computed rows kept on disk until they are written.

A stage that computes many rows (a candidate shard: ~1.1M rows at 100k pages; scoring: ~5
rows a page) makes them batch by batch; holding every batch in memory until the partition's
one write would make its memory grow with the site. :class:`SpilledFrames` writes each
batch's frame to an Arrow IPC file (exact polars types, no encoding work) in a temporary
folder beside the database (:func:`spill_folder`), and the write reads them back one at a
time: peak memory is one batch, whatever the size of the site.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory

import polars as pl


@contextmanager
def spill_folder(db_path: str | Path) -> Iterator[Path]:
    """A temporary folder beside the database (same disk, removed on leaving the block)."""
    folder = Path(db_path).resolve().parent
    folder.mkdir(parents=True, exist_ok=True)
    with TemporaryDirectory(prefix=".linkpipe-spill-", dir=folder) as tmp:
        yield Path(tmp)


class SpilledFrames:
    """Frames appended one by one to files in ``folder``; iterating reads them back in order."""

    def __init__(self, folder: Path, name: str = "rows") -> None:
        self.folder = folder
        self.name = name
        self.files: list[Path] = []
        self.rows = 0

    def append(self, frame: pl.DataFrame) -> None:
        """Write one batch's frame to its file (an empty frame is skipped)."""
        if frame.height == 0:
            return
        path = self.folder / f"{self.name}-{len(self.files):06d}.arrow"
        frame.write_ipc(path)
        self.files.append(path)
        self.rows += frame.height

    def __iter__(self) -> Iterator[pl.DataFrame]:
        for path in self.files:
            yield pl.read_ipc(path)

    def __len__(self) -> int:
        """The number of frames."""
        return len(self.files)
