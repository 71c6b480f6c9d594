"""A run's stdout and stderr: captured into the files the Dagster UI reads and mirrored to the
terminal by a thread of the run's process (Dagster's default starts ``tail`` and a Python
watcher for each stream of each run: ~0.12 CPU-s a run, eleven runs a refresh)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from linkpipe.defs.compute_logs import _Mirror, mirrored

SCRIPT = """
import json, os, subprocess, sys
import dagster as dg
from linkpipe.defs.runner import instance_for

started = []
popen = subprocess.Popen.__init__
def counted(self, args, *rest, **kw):
    started.append(args)
    popen(self, args, *rest, **kw)
subprocess.Popen.__init__ = counted

@dg.asset
def talker() -> None:
    print("a line printed", flush=True)
    os.write(1, b"a line written to fd 1\\n")
    os.write(2, b"a line written to fd 2\\n")
    os.system("echo a line of a child process")

instance = instance_for(sys.argv[1])
result = dg.materialize([talker], instance=instance)
manager = instance.compute_log_manager
keys = [
    manager.build_log_key_for_run(result.run_id, e.logs_captured_data.file_key)
    for e in result.all_events if e.event_type_value == "LOGS_CAPTURED"
]
data = manager.get_log_data(keys[0])
print(json.dumps({
    "success": result.success, "manager": type(manager).__name__, "started": started,
    "stdout": data.stdout.decode(), "stderr": data.stderr.decode(),
    "complete": manager.is_capture_complete(keys[0]),
}))
"""


def test_a_run_captures_and_mirrors_its_output_without_starting_processes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "site.duckdb")],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["success"] and report["manager"] == "MirroredComputeLogManager"
    assert report["started"] == []  # no tail, no watcher
    lines = ["a line printed", "a line written to fd 1", "a line of a child process"]
    for line in lines:
        assert line in report["stdout"]  # the file the UI shows
        assert line in done.stdout  # the terminal
    assert "a line written to fd 2" in report["stderr"]
    assert "a line written to fd 2" in done.stderr
    assert report["complete"]
    yaml = (tmp_path / "dagster_home" / "dagster.yaml").read_text(encoding="utf-8")
    assert "class: MirroredComputeLogManager" in yaml


def test_output_after_the_terminal_went_away_stays_in_the_file(tmp_path: Path) -> None:
    log = tmp_path / "run.out"
    log.write_bytes(b"")
    read_end, write_end = os.pipe()
    os.close(read_end)  # a closed terminal: writing raises EPIPE
    mirror = _Mirror(str(log), write_end)
    mirror.start()
    with open(log, "ab") as out:
        out.write(b"written after the reader left\n")
    mirror.finish()  # no error: the mirror stops copying
    assert mirror.out_fd == -1
    assert log.read_bytes() == b"written after the reader left\n"


def test_a_stream_without_a_descriptor_is_left_as_it_is(tmp_path: Path) -> None:
    stream = io.StringIO()
    log = tmp_path / "captured" / "run.err"
    with mirrored(stream, str(log)):
        stream.write("kept in the stream")
    assert stream.getvalue() == "kept in the stream"
    assert log.read_text(encoding="utf-8") == ""  # created for the UI, nothing redirected
