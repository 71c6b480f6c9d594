"""Arrays shared through memory-mapped files (lib/mapped.py): built once by one process while
the others wait, read-only mappings, half-written folders rebuilt, dropped by crawl."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest

from linkpipe.lib.mapped import (
    decode_strings,
    drop_arrays,
    encode_strings,
    file_of,
    mapped_root,
    shared_arrays,
)


def _build_slowly(log: Path) -> dict[str, np.ndarray]:
    with log.open("a") as handle:
        handle.write("built\n")
    time.sleep(0.5)  # the other processes arrive while this one builds
    return {"squares": np.arange(1000, dtype=np.int64) ** 2}


def _map_in_a_process(db: str, log: str, out: multiprocessing.Queue) -> None:
    arrays = shared_arrays(db, "c1", ("k", "d1"), lambda: _build_slowly(Path(log)))
    out.put(int(arrays["squares"].sum()))


def test_processes_build_once_and_share_the_files(tmp_path) -> None:
    db, log = tmp_path / "site.duckdb", tmp_path / "builds.log"
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    workers = [
        context.Process(target=_map_in_a_process, args=(str(db), str(log), out)) for _ in range(3)
    ]
    for w in workers:
        w.start()
    sums = [out.get(timeout=60) for _ in workers]
    for w in workers:
        w.join(timeout=60)
    assert sums == [sum(i * i for i in range(1000))] * 3
    assert log.read_text() == "built\n"  # one build for three processes
    arrays = shared_arrays(db, "c1", ("k", "d1"), lambda: pytest.fail("built again"))
    assert isinstance(arrays["squares"], np.memmap) and not arrays["squares"].flags.writeable


def test_a_half_written_folder_is_built_again_and_other_digests_go(tmp_path) -> None:
    db = tmp_path / "site.duckdb"
    first = shared_arrays(db, "c1", ("k", "d1"), lambda: {"a": np.ones(3)})
    (folder,) = [p for p in mapped_root(db).iterdir() if p.is_dir()]
    (folder / "arrays.json").unlink()  # as if the writer died before its manifest
    again = shared_arrays(db, "c1", ("k", "d1"), lambda: {"a": np.full(3, 2.0)})
    assert first.keys() == again.keys() and again["a"].tolist() == [2.0, 2.0, 2.0]
    shared_arrays(db, "c1", ("k", "d2"), lambda: {"a": np.zeros(2)})  # the crawl's inputs changed
    shared_arrays(db, "c2", ("k", "d1"), lambda: {"b": np.zeros(2)})
    shared_arrays(db, "c1", ("other", "d1"), lambda: {"c": np.zeros(2)})  # another kind stays
    assert len([p for p in mapped_root(db).iterdir() if p.is_dir()]) == 3  # c1's d1 went
    drop_arrays(db, {"c1"})
    assert len([p for p in mapped_root(db).iterdir() if p.is_dir()]) == 1
    assert shared_arrays(db, "c2", ("k", "d1"), lambda: pytest.fail("rebuilt"))["b"].shape == (2,)
    drop_arrays(db)
    assert not mapped_root(db).exists()
    drop_arrays(db)  # nothing to drop


def test_object_arrays_are_refused_and_strings_go_as_bytes(tmp_path) -> None:
    with pytest.raises(TypeError, match="objects"):
        shared_arrays(
            tmp_path / "x.duckdb", "c1", ("k", "d1"), lambda: {"o": np.array(["a"], object)}
        )
    raw = shared_arrays(
        tmp_path / "x.duckdb", "c1", ("k", "d1"), lambda: {"r": np.arange(5, dtype=np.uint8),
        "n": np.arange(3)}, raw=frozenset({"r"}),
    )  # fmt: skip
    assert Path(file_of(raw["r"])).read_bytes() == bytes(range(5))  # no header: as given
    with pytest.raises(TypeError, match="not a memory-mapped"):
        file_of(np.zeros(2))
    assert raw["n"].tolist() == [0, 1, 2]
    words = ["", "/a", "/caf\u00e9?q=1", "/" + "x" * 300]
    parts = encode_strings(words)
    assert parts["bytes"].dtype == np.uint8 and parts["offsets"].tolist() == [0, 0, 2, 12, 313]
    assert decode_strings(parts["bytes"], parts["offsets"]) == words
    empty = encode_strings([])
    assert decode_strings(empty["bytes"], empty["offsets"]) == []
