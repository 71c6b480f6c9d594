"""`run` and `crawl` check the start URL, --config, the database location and whether the site
answers before anything is written: each failure is one line, and no database file, no
dagster_home and no crawl is left behind."""

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from linkpipe.cli.errors import UserError
from linkpipe.cli.main import main
from linkpipe.cli.preflight import check_reachable
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import open_db


def closed_port_url() -> str:
    """A loopback URL on a port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def run_cli(capsys, *args: str) -> tuple[int, str]:
    """Exit status and stderr of ``linkpipe ARGS`` run in this process."""
    status = main(list(args))
    return status, capsys.readouterr().err


def assert_nothing_written(folder: Path, *kept: str) -> None:
    """No database file and no dagster_home in ``folder``: only the files ``kept``."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(kept)


@pytest.mark.parametrize("command", ["run", "crawl"])
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("notaurl", "bad start URL 'notaurl': not a URL (expected http:// or https:// and a host)"),
        ("ftp://x", "bad start URL 'ftp://x': scheme 'ftp' is not http or https"),
        ("http://", "bad start URL 'http://': no host"),
        ("https:///path", "bad start URL 'https:///path': no host"),
        ("http://x.test:99999/", "bad start URL 'http://x.test:99999/': bad port"),
        ("", "bad start URL '': empty"),
    ],
)
def test_a_bad_start_url_is_one_line_and_writes_nothing(tmp_path, capsys, command, url, message):
    db = tmp_path / "site.duckdb"
    status, err = run_cli(capsys, command, url, "--db", str(db), "--model", "hashing-64")
    assert status == 1
    assert err == f"linkpipe: error: {message}\n"
    assert_nothing_written(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[crawl]\nmax_pages = "five"\n',
            '[crawl] max_pages: must be an integer >= 1 (got "five")',
        ),
        ("[crawl]\nmax_pages = -1\n", "[crawl] max_pages: must be an integer >= 1 (got -1)"),
        ('[crawl]\nobey_robots = "no"\n', '[crawl] obey_robots: must be true or false (got "no")'),
        (
            "[crawl]\nconcurrency = 0\n",
            "[crawl] concurrency: must be an integer from 1 to 64 (got 0)",
        ),
        (
            "[page_types]\nblog = ['(unclosed']\n",
            '[page_types] blog: "(unclosed" is not a valid regular expression '
            "(missing ), unterminated subpattern at position 0)",
        ),
        (
            "[crawl]\nmax_page = 5\n",
            "unknown key 'max_page' in [crawl] (did you mean 'max_pages'?)",
        ),
    ],
)
def test_a_bad_config_is_one_line_before_the_site_is_asked(tmp_path, capsys, text, message):
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    db = tmp_path / "site.duckdb"
    url = closed_port_url()  # the config is checked first: no "could not reach"
    status, err = run_cli(capsys, "crawl", url, "--db", str(db), "--config", str(config))
    assert status == 1
    assert err.startswith(f"linkpipe: error: config.toml: {message}")
    assert err.count("\n") == 1
    assert_nothing_written(tmp_path, "config.toml")


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_max_pages_below_one_is_refused_when_parsing(tmp_path, capsys, value):
    db = tmp_path / "site.duckdb"
    with pytest.raises(SystemExit) as exit_:
        main(["run", "http://127.0.0.1:9/", "--db", str(db), "--max-pages", value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --max-pages:" in err.splitlines()[-1]
    assert ("not a whole number" if value == "many" else f"must be at least 1, not {value}") in err
    assert_nothing_written(tmp_path)


def test_an_unreachable_site_is_one_line_and_writes_nothing(tmp_path, capsys):
    url = closed_port_url()
    db = tmp_path / "site.duckdb"
    started = time.monotonic()
    status, err = run_cli(capsys, "run", url, "--db", str(db), "--model", "hashing-64")
    assert status == 1 and time.monotonic() - started < 10
    assert err == f"linkpipe: error: could not reach {url}: connection refused\n"
    assert_nothing_written(tmp_path)


def test_an_unreachable_site_registers_no_crawl_in_an_existing_database(tmp_path):
    db = tmp_path / "kept.duckdb"
    with open_db(db) as con:
        con.execute(
            "INSERT INTO crawls (crawl_id, start_url, source) VALUES ('old', 'http://x.test/', 'crawler')"
        )
    url = closed_port_url()
    out = subprocess.run(
        [sys.executable, "-m", "linkpipe.cli.main", "crawl", url, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1
    assert out.stderr == f"linkpipe: error: could not reach {url}: connection refused\n"
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT crawl_id FROM crawls").fetchall() == [("old",)]
    con.close()
    assert not (tmp_path / "dagster_home").exists()


def test_a_site_that_never_answers_times_out_quickly(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text("[crawl]\nrequest_timeout_s = 0.5\n", encoding="utf-8")
    with socket.socket() as silent:  # accepts connections (backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        started = time.monotonic()
        status, err = run_cli(
            capsys, "crawl", url, "--db", str(tmp_path / "s.duckdb"), "--config", str(config)
        )
    assert status == 1 and time.monotonic() - started < 5
    assert err == f"linkpipe: error: could not reach {url}: no answer within 0.5 s\n"
    assert_nothing_written(tmp_path, "config.toml")


def test_any_http_answer_after_redirects_counts_as_reachable(tmp_path):
    site = tmp_path / "site"
    (site / "new").mkdir(parents=True)
    (site / "new" / "index.html").write_text("<html><body>moved</body></html>")
    (site / "_routes.json").write_text(
        json.dumps({"redirects": {"/old/": "/new/"}, "status": {"/gone/": 410}})
    )
    with serve_site(site) as served:
        for path in ("/old/", "/gone/", "/missing/"):
            check_reachable(served.base_url + path, {"request_timeout_s": 2.0})
        url = served.base_url + "/"
    with pytest.raises(UserError, match="could not reach .*: connection refused"):
        check_reachable(url, {})  # the server is stopped now


def test_a_valid_config_is_stored_as_the_plain_dict_it_sets(tmp_path, demo_site):
    config = tmp_path / "config.toml"
    config.write_text(
        "[crawl]\nmax_pages = 12\nconcurrency = 2\nuse_sitemap = false\n[graph]\ndeep_threshold = 2\n",
        encoding="utf-8",
    )
    db = tmp_path / "ok.duckdb"
    out = subprocess.run(
        [
            sys.executable, "-m", "linkpipe.cli.main", "crawl", demo_site.base_url + "/",
            "--db", str(db), "--crawl-id", "ok", "--config", str(config),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    con = duckdb.connect(str(db), read_only=True)
    (stored,) = con.execute("SELECT config_json FROM crawls WHERE crawl_id = 'ok'").fetchone()
    (pages,) = con.execute(  # robots-disallowed URLs are recorded with status 0, not fetched
        "SELECT count(*) FROM crawl_pages WHERE crawl_id = 'ok' AND status > 0"
    ).fetchone()
    con.close()
    assert json.loads(stored) == {
        "max_pages": 12,
        "concurrency": 2,
        "use_sitemap": False,
        "graph": {"deep_threshold": 2},
    }
    assert 1 <= pages <= 12
