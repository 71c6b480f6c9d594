"""Arrays that the processes of one machine share through memory-mapped files.

Every candidate shard worker needs the same site-wide arrays (TF-IDF rows, the lexical
index's postings, page vectors, navigation edges: ~650 MB at 100k pages). Built in each
worker they cost that much per worker, and building them took a transient several times as
large. Here the first process that needs them builds them once, under a file lock, into
``.npy`` files in a folder beside the database (``<database>.linkpipe-mapped/``); every process
opens them memory-mapped read-only, so the workers share one copy in the page cache.

The files are a cache, derived from the database and keyed by the crawl and the digest of
what they were built from: a folder that is missing or half written is built again, never
read. :func:`drop_arrays` removes a crawl's folders (the scoring stage does when the candidate
step is over, and pruning for the crawls it removes).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from linkpipe.lib.heap import return_free_memory

MAPPED_SUFFIX = ".linkpipe-mapped"
_MANIFEST = "arrays.json"  # written last: a folder without it is incomplete

Arrays = dict[str, np.ndarray]


def mapped_root(db_path: str | Path) -> Path:
    """The folder of the database's mapped arrays."""
    path = Path(db_path).resolve()
    return path.with_name(path.name + MAPPED_SUFFIX)


def shared_arrays(
    db_path: str | Path,
    crawl_id: str,
    key: tuple[str, str],
    build: Callable[[], Arrays],
    raw: frozenset[str] = frozenset(),
) -> Arrays:
    """The crawl's arrays of ``key`` (what they are, the digest of what they are built from),
    memory-mapped read-only; built by ``build`` (numeric arrays only) and written by the first
    process that asks, while the others wait. A new digest replaces the crawl's arrays of the
    same kind. ``raw``: names of one-dimensional byte arrays written as they are (no ``.npy``
    header, for libraries that map a file of their own format: the array's ``filename``)."""
    root = mapped_root(db_path)
    kind, digest = key
    folder = root / _folder_name(crawl_id, f"{kind}\n{digest}")
    if not (folder / _MANIFEST).exists():
        root.mkdir(exist_ok=True)
        with _locked(root / f"{folder.name}.lock"):
            if not (folder / _MANIFEST).exists():
                _write(folder, {"crawl_id": crawl_id, "kind": kind}, build(), raw)
                _drop_others(root, crawl_id, kind, keep=folder.name)
                return_free_memory()  # the build's transients (~1 GB at 100k pages), not held
    manifest = json.loads((folder / _MANIFEST).read_text())
    arrays = {n: np.load(folder / f"{n}.npy", mmap_mode="r") for n in manifest["arrays"]}
    for name in manifest.get("raw", []):
        arrays[name] = np.memmap(folder / f"{name}.raw", dtype=np.uint8, mode="r")
    return arrays


def file_of(array: np.ndarray) -> str:
    """The file a ``raw`` array of :func:`shared_arrays` maps."""
    if not isinstance(array, np.memmap) or array.filename is None:
        raise TypeError("not a memory-mapped array")
    return str(array.filename)


def drop_arrays(db_path: str | Path, crawl_ids: set[str] | None = None) -> None:
    """Remove the mapped arrays of ``crawl_ids`` (every crawl's when None). A process that
    still maps them keeps reading them (the files go when it unmaps them)."""
    root = mapped_root(db_path)
    if not root.is_dir():
        return
    for folder in _folders(root):
        if crawl_ids is None or _about(folder)[0] in crawl_ids:
            _remove(folder)
    for lock in root.glob("*.lock"):  # of folders gone (or being built: see _write)
        if not lock.with_suffix("").exists():
            lock.unlink(missing_ok=True)
    if not any(root.iterdir()):
        root.rmdir()


def encode_strings(values: list[str]) -> Arrays:
    """A list of strings as two arrays (UTF-8 bytes and offsets), for :func:`decode_strings`."""
    data = [v.encode() for v in values]
    offsets = np.zeros(len(data) + 1, np.int64)
    np.cumsum([len(b) for b in data], out=offsets[1:])
    return {"bytes": np.frombuffer(b"".join(data), np.uint8), "offsets": offsets}


def decode_strings(data: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The strings :func:`encode_strings` encoded."""
    blob, ends = bytes(data), offsets.tolist()
    return [blob[a:b].decode() for a, b in zip(ends, ends[1:], strict=False)]


def _folder_name(crawl_id: str, digest: str) -> str:
    return hashlib.sha1(f"{crawl_id}\n{digest}".encode()).hexdigest()[:24]


def _write(folder: Path, about: dict[str, str], arrays: Arrays, raw: frozenset[str]) -> None:
    """Write the arrays into a fresh folder and the manifest last (atomic by rename)."""
    part = folder.with_name(f"{folder.name}.part-{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)  # incomplete: its manifest is missing
    part.mkdir()
    for name, array in arrays.items():
        if array.dtype == object:
            raise TypeError(f"array {name!r} holds objects: it cannot be memory-mapped")
        if name in raw:
            np.ascontiguousarray(array, dtype=np.uint8).tofile(part / f"{name}.raw")
        else:
            np.save(part / f"{name}.npy", np.ascontiguousarray(array))
    listed = {"arrays": sorted(set(arrays) - raw), "raw": sorted(raw & set(arrays))}
    (part / _MANIFEST).write_text(json.dumps(about | listed))
    try:
        part.rename(folder)
    except OSError:  # another process (whose lock file was removed) wrote it meanwhile
        shutil.rmtree(part, ignore_errors=True)
        if not (folder / _MANIFEST).exists():
            raise


def _folders(root: Path) -> Iterator[Path]:
    return (p for p in root.iterdir() if p.is_dir())


def _about(folder: Path) -> tuple[str | None, str | None]:
    """(crawl, kind) of a folder's arrays; (None, None) when incomplete or damaged."""
    try:
        manifest = json.loads((folder / _MANIFEST).read_text())
        return str(manifest["crawl_id"]), str(manifest["kind"])
    except (OSError, ValueError, KeyError):
        return None, None


def _drop_others(root: Path, crawl_id: str, kind: str, keep: str) -> None:
    """Remove the crawl's folders of the same kind and another digest (inputs changed)."""
    for folder in _folders(root):
        if folder.name != keep and _about(folder) == (crawl_id, kind):
            _remove(folder)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.with_name(f"{folder.name}.lock").unlink(missing_ok=True)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` between processes (held while building)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
