"""The hostile-input suite's machinery: a case table runs `linkpipe ARGV` in this process and
checks its exit status, its one-line message and what must not happen (a database file created,
rows of an existing database changed, a traceback printed).

A case's argv and files may hold placeholders, filled per test:

* ``{tmp}``: the test's own folder; ``{db}``: the database the case runs against (``db="new"``:
  a path where no file exists yet; ``db="kept"``: a copy of a database holding a finished crawl
  with pages, links and a decision);
* ``{closed}``: a loopback URL on a port nothing listens on; ``{silent}``: a loopback server that
  accepts connections and never answers; ``{site}``: a tiny static site on loopback (its
  ``host:port`` is ``{site_host}``).

Every case runs in well under a second except those that let a crawl start; the hostile crawl
itself is one module-scoped run (test_crawl_hostile.py).
"""

from __future__ import annotations

import re
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from linkpipe.cli.main import main
from linkpipe.lib.run_status import finish_run_in, start_run
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import open_db, write_partition

KEPT_CRAWL = "kept"
KEPT_SITE = "http://kept.test/"
KEPT_PAGES = [f"http://kept.test/{path}" for path in ("", "a/", "b/", "c/")]


@dataclass(frozen=True)
class Case:
    """One hostile input and its expected one-line outcome.

    ``message`` is a regular expression for the last line of standard error (the whole line);
    with ``status`` 1 standard error must be that one line, and an empty ``message`` means an
    empty standard error. ``added`` lists the rows a case may add to a kept database (table ->
    count); every other count must stay as it was. Placeholders in ``message`` are filled with
    their values, escaped.
    """

    id: str
    argv: tuple[str, ...]
    message: str
    status: int = 1
    db: str = "new"  # "new": no file there, none may be created; "kept": rows must stay
    files: dict[str, bytes | str] = field(default_factory=dict)  # {tmp}-relative path -> content
    added: dict[str, int] = field(default_factory=dict)
    absent: tuple[str, ...] = ()  # {tmp}-relative paths that must not exist afterwards
    out: str = ""  # a regular expression standard output must contain
    xfail: str = ""  # the exact bug while it is not fixed (strict)

    def param(self) -> object:
        marks = [pytest.mark.xfail(strict=True, reason=self.xfail)] if self.xfail else []
        return pytest.param(self, id=self.id, marks=marks)


@dataclass
class Outcome:
    status: int
    out: str
    err: str


def run_cli(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Outcome:
    """``linkpipe ARGV`` in this process: exit status (2 for argparse's refusals), stdout, stderr."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse: usage errors
        status = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return Outcome(status, captured.out, captured.err)


def table_counts(db: Path) -> dict[str, int]:
    """Row count of every table of ``db`` (read-only)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()


def crawl_rows(db: Path, crawl_id: str = KEPT_CRAWL) -> list[tuple[object, ...]]:
    """The kept crawl's pages as stored (to prove that nothing of it changed)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT url, status, title, content_hash FROM crawl_pages WHERE crawl_id = ? "
            "ORDER BY url",
            [crawl_id],
        ).fetchall()
    finally:
        con.close()


def build_kept_db(path: Path) -> None:
    """A database with one finished crawl: four pages, their links and one decision."""
    with open_db(path) as con:
        con.execute(
            "INSERT INTO crawls (crawl_id, start_url, source) VALUES (?, ?, 'crawler')",
            [KEPT_CRAWL, KEPT_SITE],
        )
        pages = [
            {"url": url, "shard": 0, "status": 200, "title": f"Page {i}", "content_hash": str(i)}
            for i, url in enumerate(KEPT_PAGES)
        ]
        links = [{"source_url": KEPT_PAGES[0], "target_url": url} for url in KEPT_PAGES[1:]]
        write_partition(con, KEPT_CRAWL, {"crawl_pages": pages, "crawl_links": links})
        con.execute(
            "INSERT INTO link_decisions (source_url, target_url, decision) VALUES (?, ?, ?)",
            [KEPT_PAGES[1], KEPT_PAGES[2], "accepted"],
        )
    start_run(path, KEPT_CRAWL, "crawl and link graph")
    finish_run_in(path, KEPT_CRAWL, "complete")


@pytest.fixture(scope="session")
def kept_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kept") / "kept.duckdb"
    build_kept_db(path)
    return path


@pytest.fixture()
def kept_db(tmp_path: Path, kept_template: Path) -> Path:
    """A fresh copy of the kept database in the test's folder."""
    path = tmp_path / "kept.duckdb"
    shutil.copyfile(kept_template, path)
    return path


@pytest.fixture()
def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="session")
def silent_url() -> Iterator[str]:
    """A server that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"


@pytest.fixture(scope="session")
def tiny_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("tiny_site")
    (root / "index.html").write_text(
        "<html><head><title>Tiny</title></head><body><p>One page.</p></body></html>",
        encoding="utf-8",
    )
    with serve_site(root) as site:
        yield site.base_url + "/"


@pytest.fixture()
def check_case(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    kept_db: Path,
    closed_url: str,
    silent_url: str,
    tiny_site: str,
):
    """Run a :class:`Case` and check its outcome and what must not happen; the Outcome."""

    def check(case: Case) -> Outcome:
        db = kept_db if case.db == "kept" else tmp_path / "new" / "site.duckdb"
        values = {
            "tmp": str(tmp_path), "db": str(db), "closed": closed_url, "silent": silent_url,
            "site": tiny_site, "site_host": tiny_site.split("/")[2],
        }  # fmt: skip
        written = write_files(tmp_path, case.files, values)
        before = (table_counts(db), crawl_rows(db)) if case.db == "kept" else None
        outcome = run_cli(capsys, [arg.format(**values) for arg in case.argv])
        assert_outcome(case, outcome, values)
        for path, content in written.items():  # the input files are left as they were
            assert path.read_bytes() == content, f"{path} changed"
        for name in case.absent:
            assert not (tmp_path / name).exists(), f"{name} was written"
        if before is None:
            assert not db.exists(), f"{db} was created"
            assert not (db.parent / "dagster_home").exists()
        else:
            counts, rows = before
            expected = {t: n + case.added.get(t, 0) for t, n in counts.items()}
            assert table_counts(db) == expected
            assert crawl_rows(db) == rows
        return outcome

    return check


def write_files(
    folder: Path, files: dict[str, bytes | str], values: dict[str, str]
) -> dict[Path, bytes]:
    """Write a case's files under ``folder`` (text with placeholders filled); path -> bytes."""
    written: dict[Path, bytes] = {}
    for name, content in files.items():
        target = folder / name.format(**values)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.format(**values).encode("utf-8") if isinstance(content, str) else content
        target.write_bytes(data)
        written[target] = data
    return written


def assert_outcome(case: Case, outcome: Outcome, values: dict[str, str]) -> None:
    """Exit status, no traceback, and the expected last line of standard error (the only one
    when the command failed)."""
    err = outcome.err
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert outcome.status == case.status, err
    if case.out:
        assert re.search(case.out, outcome.out), outcome.out[:500]
    if not case.message:
        assert err == ""
        return
    if case.status == 1:
        assert len(lines) == 1, err
    message = case.message.format(**{k: re.escape(v) for k, v in values.items()})
    assert lines and re.fullmatch(message, lines[-1]), f"{lines[-1:]!r} !~ {message!r}"


@dataclass
class Route:
    """What the hostile server answers for one path: a response, or ``raw`` bytes written as
    they are on the socket before it is closed (a broken answer); ``delay_s`` before either."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})
    delay_s: float = 0.0
    raw: bytes | None = None


@contextmanager
def serve_routes(routes_for: Callable[[str], Callable[[str], Route | None]]) -> Iterator[str]:
    """Serve on 127.0.0.1 what ``routes_for(base_url)(path)`` answers (None: 404); the base URL."""
    holder: dict[str, Callable[[str], Route | None]] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

        def do_GET(self) -> None:  # noqa: N802
            route = holder["routes"](self.path) or Route(b"<html>not found</html>", 404)
            time.sleep(route.delay_s)
            try:
                if route.raw is not None:
                    self.wfile.write(route.raw)
                    self.close_connection = True
                    return
                self.send_response(route.status)
                for key, value in route.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)
            except OSError:  # the crawler gave up on this answer
                self.close_connection = True

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

        def handle_error(self, request: object, client_address: object) -> None:
            return

    server = Server(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    holder["routes"] = routes_for(base)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()
