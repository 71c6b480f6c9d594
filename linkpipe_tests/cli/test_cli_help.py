"""The command line a newcomer meets: help on every argument, --version, one-line errors,
tracebacks only with --debug."""

import argparse
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from linkpipe.cli import main as cli_main
from linkpipe.cli.main import build_parser, main
from linkpipe.lib.storage import open_db


def commands(
    parser: argparse.ArgumentParser, path: str = "linkpipe"
) -> Iterator[tuple[str, argparse.ArgumentParser, argparse._SubParsersAction]]:
    """Every (command path, parser, its sub-command action), depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield f"{path} {name}", command, action
                yield from commands(command, f"{path} {name}")


def test_every_argument_of_every_command_has_help():
    parser = build_parser()
    missing = [
        f"linkpipe {action.option_strings or action.dest}"
        for action in parser._actions
        if not isinstance(action, argparse._SubParsersAction) and not (action.help or "").strip()
    ]
    for path, command, parent in commands(parser):
        listed = {choice.dest for choice in parent._choices_actions if (choice.help or "").strip()}
        if path.rsplit(" ", 1)[-1] not in listed:
            missing.append(f"{path} (no help in its parent's command list)")
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue  # its commands are checked one by one
            if not (action.help or "").strip() or action.help == argparse.SUPPRESS:
                missing.append(f"{path} {action.option_strings or action.dest}")
    assert missing == []
    assert {"linkpipe demo", "linkpipe run", "linkpipe sql", "linkpipe review set"} <= {
        path for path, _, _ in commands(parser)
    }


def test_debug_is_accepted_before_and_after_every_command():
    parser = build_parser()
    for path, command, _ in commands(parser):
        debug = [a for a in command._actions if "--debug" in a.option_strings]
        assert len(debug) == 1, path
    assert parser.parse_args(["--debug", "sql", "--db", "x", "SELECT 1"]).debug is True
    assert parser.parse_args(["sql", "--db", "x", "SELECT 1", "--debug"]).debug is True
    assert parser.parse_args(["review", "set", "a", "b", "accepted", "--db", "x", "--debug"]).debug
    assert parser.parse_args(["sql", "--db", "x", "SELECT 1"]).debug is False


def test_version(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"linkpipe {version('linkpipe')}\n"


def test_user_error_is_one_line_and_debug_adds_the_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    bad = tmp_path / "bad.duckdb"
    bad.write_text("not a database", encoding="utf-8")
    assert main(["sql", "--db", str(bad), "SELECT 1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"linkpipe: error: cannot open {bad} read-only: ")
    assert "not a DuckDB database (found another kind of file)" in err

    assert main(["sql", "--db", str(bad), "SELECT 1", "--debug"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1].startswith(f"linkpipe: error: cannot open {bad} read-only: ")


def test_missing_folder_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    target = tmp_path / "no-such-folder" / "out.csv"
    db = tmp_path / "kept.duckdb"
    with open_db(db) as con:
        con.execute("INSERT INTO crawls (crawl_id, start_url, source) VALUES ('c1', 'http://x.test/', 'crawler')")
    assert main(["review", "export", str(target), "--db", str(db)]) == 1
    assert capsys.readouterr().err == f"linkpipe: error: No such file or directory: {target}\n"


def test_unexpected_error_is_one_line_unless_debug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    def broken_command(args: argparse.Namespace) -> None:  # stands in for a bug in a command
        raise RuntimeError("internal state lost\nsecond line of detail")

    monkeypatch.setattr("linkpipe.cli.sql.cmd_sql", broken_command)
    assert main(["sql", "--db", "x.duckdb", "SELECT 1"]) == 1
    assert capsys.readouterr().err == (
        "linkpipe: error: RuntimeError: internal state lost (run with --debug for the traceback)\n"
    )
    assert cli_main.main(["--debug", "sql", "--db", "x.duckdb", "SELECT 1"]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err and "in broken_command" in err
    assert err.splitlines()[-1] == "linkpipe: error: RuntimeError: internal state lost"


def test_unreachable_start_url_is_one_line_without_traceback(tmp_path: Path):
    db = tmp_path / "site.duckdb"
    out = subprocess.run(
        [sys.executable, "-m", "linkpipe.cli.main", "run", "http://127.0.0.1:9/", "--db", str(db),
         "--model", "hashing-64", "--max-pages", "5"],
        capture_output=True, text=True, timeout=180, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    errors = [line for line in out.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and errors[0].startswith("linkpipe: error: "), out.stderr
    assert "127.0.0.1:9" in errors[0]
