"""Hostile command lines, settings files and review input: each case is refused with one line
(or warns and goes on), before anything is written; an existing database keeps every row."""

from __future__ import annotations

import pytest

from linkpipe_tests.hostile.conftest import KEPT_PAGES, Case

E = "linkpipe: error: "
NOT_A_URL = r"not a URL \(expected http:// or https:// and a host\)"
CRAWL = ("crawl", "--db", "{db}", "--model", "hashing-64")
JUNK_DB = b"not a duckdb file\x00" * 200
SQLITE_DB = b"SQLite format 3\x00" + bytes(4080)  # DuckDB reads this header as SQLite's
A, B, NEW = KEPT_PAGES[1], KEPT_PAGES[2], "http://kept.test/never-crawled/"


def crawl(url: str, *more: str) -> tuple[str, ...]:
    return (*CRAWL[:1], url, *CRAWL[1:], *more)


def configured(text: str | bytes, message: str, db: str = "new", **kw: str) -> dict:
    """A `crawl` of a closed port with ``--config``: the settings are checked first."""
    return {
        "argv": crawl("{closed}", "--config", "{tmp}/settings.toml"),
        "files": {"settings.toml": text},
        "message": E + "settings.toml: " + message,
        "db": db,
        **kw,
    }


START_URL_CASES = [
    Case("run-not-a-url", ("run", "notaurl", "--db", "{db}"), E + "bad start URL 'notaurl': " + NOT_A_URL),
    Case("file-url", crawl("file:///etc/passwd"), E + r"bad start URL 'file:///etc/passwd': scheme 'file' is not http or https"),
    Case("javascript-url", crawl("javascript:alert(1)"), E + r"bad start URL 'javascript:alert\(1\)': " + NOT_A_URL),
    Case("path-not-url", crawl("/etc/passwd"), E + "bad start URL '/etc/passwd': " + NOT_A_URL),
    Case("ftp-url", crawl("ftp://x.test/"), E + "bad start URL 'ftp://x.test/': scheme 'ftp' is not http or https"),
    Case("no-host", crawl("http://"), E + "bad start URL 'http://': no host"),
    Case("bad-port", crawl("http://127.0.0.1:99999/"), E + r"bad start URL 'http://127\.0\.0\.1:99999/': bad port"),
    Case("control-char", crawl("http://x.test/\x00"), E + r"bad start URL 'http://x\.test/\\x00': contains spaces or control characters"),
    Case("space-in-url", crawl("http://x.test/a b"), E + r"bad start URL 'http://x\.test/a b': contains spaces or control characters"),
    Case(
        "broken-ipv6-host", crawl("http://[::1/"), E + r"bad start URL 'http://\[::1/': .+",
    ),
    Case(
        "userinfo-url", crawl("http://user:pw@{site_host}/"),
        E + r"bad start URL 'http://user:pw@127\.0\.0\.1:\d+/': .+",
    ),
    Case("idn-host-unknown", crawl("http://bücher.invalid/"), E + "could not reach http://bücher.invalid/: host not found"),
    Case("unreachable-port", crawl("{closed}"), E + "could not reach {closed}: connection refused"),
    Case("unreachable-port-kept-db", crawl("{closed}"), E + "could not reach {closed}: connection refused", db="kept"),
    Case(
        "server-never-answers",
        crawl("{silent}", "--config", "{tmp}/fast.toml"),
        E + r"could not reach {silent}: no answer within 0\.5 s",
        files={"fast.toml": "[crawl]\nrequest_timeout_s = 0.5\n"},
    ),
]  # fmt: skip

DATABASE_CASES = [
    Case("db-is-a-folder", crawl("{site}", "--db", "{tmp}"), E + "cannot open database {tmp} for writing: it is a folder"),
    Case(
        "db-not-duckdb",
        crawl("{site}", "--db", "{tmp}/junk.duckdb"),
        E + r"cannot open database {tmp}/junk\.duckdb for writing: not a DuckDB database \(found another kind of file\)",
        files={"junk.duckdb": JUNK_DB},
    ),
    Case(
        "sql-db-not-duckdb",
        ("sql", "--db", "{tmp}/junk.duckdb", "SELECT 1"),
        E + r"cannot open {tmp}/junk\.duckdb read-only: not a DuckDB database \(found another kind of file\)",
        files={"junk.duckdb": JUNK_DB},
    ),
    Case(
        "db-is-sqlite",
        crawl("{site}", "--db", "{tmp}/old.sqlite"),
        E + r"cannot open database {tmp}/old\.sqlite for writing: .*not a DuckDB database.*",
        files={"old.sqlite": SQLITE_DB},
    ),
    Case(
        "sql-db-is-sqlite",
        ("sql", "--db", "{tmp}/old.sqlite", "SELECT 1"),
        E + r"cannot open {tmp}/old\.sqlite read-only: .*not a DuckDB database.*",
        files={"old.sqlite": SQLITE_DB},
    ),
    Case("sql-db-is-a-folder", ("sql", "--db", "{tmp}", "SELECT 1"), E + "cannot open {tmp} read-only: IO Error: .*Is a directory"),
    Case("sql-db-missing", ("sql", "--db", "{db}", "SELECT 1"), E + "database not found: {db}"),
    Case("sql-db-folder-missing", ("sql", "--db", "{tmp}/no/such/folder/x.duckdb", "SELECT 1"), E + r"database not found: {tmp}/no/such/folder/x\.duckdb"),
    Case(
        "review-export-db-missing", ("review", "export", "-", "--db", "{db}"), E + "database not found: {db}",
    ),
    Case("import-path-missing", ("import", "{tmp}/nothing.csv", "--db", "{db}"), E + r"no such file or folder: {tmp}/nothing\.csv"),
]  # fmt: skip

ARGUMENT_CASES = [
    Case("max-pages-0", crawl("{closed}", "--max-pages", "0"), r"linkpipe crawl: error: argument --max-pages: must be at least 1, not 0", status=2),
    Case("max-pages-text", crawl("{closed}", "--max-pages", "lots"), r"linkpipe crawl: error: argument --max-pages: not a whole number: 'lots'", status=2),
    Case("keep-crawls-0", ("run", "{closed}", "--db", "{db}", "--keep-crawls", "0"), r"linkpipe run: error: argument --keep-crawls: must be at least 1, not 0", status=2),
    Case("unknown-command", ("frobnicate", "--db", "{db}"), r"linkpipe: error: argument COMMAND: invalid choice: 'frobnicate' \(choose from .*\)", status=2),
    Case("db-option-missing", ("crawl", "{closed}"), r"linkpipe crawl: error: the following arguments are required: --db", status=2),
    Case("import-kind-unknown", ("import", "{tmp}", "--db", "{db}", "--kind", "pdf"), r"linkpipe import: error: argument --kind: invalid choice: 'pdf' .*", status=2),
    Case("sql-wait-negative", ("sql", "--db", "{db}", "--wait", "-1", "SELECT 1"), r"linkpipe sql: error: argument --wait: must be 0 or more seconds, not -1", status=2),
    Case("review-decision-unknown", ("review", "set", A, B, "perhaps", "--db", "{db}"), r"linkpipe review set: error: argument decision: invalid choice: 'perhaps' .*", status=2),
]  # fmt: skip

CONFIG_CASES = [
    Case("config-type", **configured('[crawl]\nmax_pages = "five"\n', r'\[crawl\] max_pages: must be an integer >= 1 \(got "five"\)')),
    Case("config-float-for-int", **configured("[crawl]\nmax_pages = 5.5\n", r"\[crawl\] max_pages: must be an integer >= 1 \(got 5\.5\)")),
    Case("config-bool-as-text", **configured('[crawl]\nobey_robots = "no"\n', r'\[crawl\] obey_robots: must be true or false \(got "no"\)')),
    Case("config-unknown-key", **configured("[crawl]\nmax_page = 5\n", r"unknown key 'max_page' in \[crawl\] \(did you mean 'max_pages'\?\); valid keys: max_pages, .*")),
    Case("config-unknown-section", **configured("[crawler]\nmax_pages = 5\n", r"unknown section \[crawler\]; expected crawl, indexability, page_types, graph, scoring")),
    Case("config-key-outside-section", **configured("max_pages = 5\n", r"key 'max_pages' is outside any section; put it under \[crawl\]")),
    Case("config-bad-regex", **configured("[page_types]\nblog = ['(unclosed']\n", r'\[page_types\] blog: "\(unclosed" is not a valid regular expression \(missing \), unterminated subpattern at position 0\)')),
    Case("config-regex-not-a-list", **configured("[page_types]\nblog = '/blog/'\n", r'\[page_types\] blog: must be a list of regular expressions \(got "/blog/"\)')),
    Case("config-concurrency-0", **configured("[crawl]\nconcurrency = 0\n", r"\[crawl\] concurrency: must be an integer from 1 to 64 \(got 0\)")),
    Case("config-concurrency-huge", **configured("[crawl]\nconcurrency = 1000\n", r"\[crawl\] concurrency: must be an integer from 1 to 64 \(got 1000\)")),
    Case("config-timeout-0", **configured("[crawl]\nrequest_timeout_s = 0\n", r"\[crawl\] request_timeout_s: must be a number of seconds > 0 \(got 0\)")),
    Case("config-nan", **configured("[crawl]\nrequest_timeout_s = nan\n", r"\[crawl\] request_timeout_s: must be a number of seconds > 0 \(got NaN\)")),
    Case("config-inf", **configured("[crawl]\ntotal_time_s = inf\n", r"\[crawl\] total_time_s: must be a number of seconds > 0 \(got Infinity\)")),
    Case("config-share-out-of-range", **configured("[indexability]\nlisting_link_share = 2.5\n", r'\[indexability\] listing_link_share: must be "auto" \(measured on the site\) or a number from 0 to 1 \(got 2\.5\)')),
    Case("config-negative-depth", **configured("[graph]\ndeep_threshold = -1\n", r"\[graph\] deep_threshold: must be an integer >= 0 \(got -1\)")),
    Case("config-not-utf8", **configured('[crawl]\nuser_agent = "caf\xe9"\n'.encode("latin-1"), r"'utf-8' codec can't decode byte 0xe9 in position 25: invalid continuation byte")),
    Case("config-binary", **configured(bytes(range(256)), r"'utf-8' codec can't decode byte 0x80 in position 128: invalid start byte")),
    Case("config-toml-syntax", **configured("[crawl\nmax_pages = 5\n", r"Expected ']' at the end of a table declaration \(at line 1, column 7\)")),
    Case("config-duplicate-key", **configured("[crawl]\nmax_pages = 5\nmax_pages = 6\n", r"Cannot overwrite a value \(at line 3, column 14\)")),
    Case("config-user-agent-newline", **configured('[crawl]\nuser_agent = "a\\nb"\n', r'\[crawl\] user_agent: must be a non-empty string without control characters \(got "a\\nb"\)')),
    Case("config-extra-host-is-url", **configured('[crawl]\nextra_hosts = ["http://x/"]\n', r'\[crawl\] extra_hosts: must be a list of host names \(host or host:port\) \(got \["http://x/"\]\)')),
    Case("config-floor-above-ceiling", **configured("[scoring]\nsemantic_floor = 0.9\nsemantic_ceiling = 0.5\n", r"\[scoring\] semantic_floor: must be below semantic_ceiling \(got 0\.9 and 0\.5\)")),
    Case("config-excluded-type-unknown", **configured('[indexability]\nexcluded_types = ["blgo"]\n', r"\[indexability\] excluded_types: unknown page type 'blgo' \(did you mean 'blog'\?\); page types: .*")),
    Case("config-section-not-table", **configured("crawl = 5\n", r"\[crawl\] must be a table \(got 5\)")),
    Case("config-array-of-tables", **configured("[[crawl]]\nmax_pages = 5\n", r'\[crawl\] must be a table \(got \[."max_pages": 5.\]\)')),
    Case("config-trailing-slash-choice", **configured('[crawl]\ntrailing_slash = "sometimes"\n', r'\[crawl\] trailing_slash: must be one of keep, add, strip \(got "sometimes"\)')),
    Case("config-empty-type-name", **configured('[page_types]\n"" = ["x"]\n', r'\[page_types\] "": a page type name must not be empty')),
    Case("config-bad-kept-db", **configured("[crawl]\nconcurrency = -4\n", r"\[crawl\] concurrency: must be an integer from 1 to 64 \(got -4\)", db="kept")),
    Case("config-missing-file", crawl("{closed}", "--config", "{tmp}/none.toml"), E + r"none\.toml: \[Errno 2\] No such file or directory: '{tmp}/none\.toml'"),
    Case("config-is-a-folder", crawl("{closed}", "--config", "{tmp}"), E + r"[^:]+: \[Errno 21\] Is a directory: '{tmp}'"),
    Case(
        "config-utf8-bom",
        crawl("{closed}", "--config", "{tmp}/settings.toml"),
        E + "could not reach {closed}: connection refused",  # the file is valid: the URL is next
        files={"settings.toml": b"\xef\xbb\xbf[crawl]\nmax_pages = 5\n"},
    ),
    Case(
        "config-deep-nesting", **configured("[crawl]\nmax_pages = " + "[" * 2000 + "]" * 2000 + "\n", r".+"),
    ),
]  # fmt: skip

REVIEW_CASES = [
    Case(
        "review-set-not-a-url", ("review", "set", "notaurl", B, "rejected", "--db", "{db}"),
        E + "bad source URL 'notaurl': " + NOT_A_URL + "; nothing recorded", db="kept",
    ),
    Case(
        "review-set-ftp-target", ("review", "set", A, "ftp://x", "accepted", "--db", "{db}"),
        E + "bad target URL 'ftp://x': scheme 'ftp' is not http or https; nothing recorded", db="kept",
    ),
    Case(
        "review-set-unknown-pair-warns", ("review", "set", A, NEW, "rejected", "--db", "{db}"),
        f"warning: {A} -> {NEW}: target matches no page of any crawl \\(recorded anyway\\)",
        status=0, db="kept", added={"link_decisions": 1},
    ),
    Case(
        "review-import-bad-url", ("review", "import", "{tmp}/d.csv", "--db", "{db}"),
        E + r'd\.csv line 3, column "target_url": expected an absolute URL, got \'/b/\' \(' + NOT_A_URL + r"\)",
        files={"d.csv": f"source_url,target_url,decision\n{A},{B},accepted\n{A},/b/,rejected\n"}, db="kept",
    ),
    Case(
        "review-import-bad-decision", ("review", "import", "{tmp}/d.csv", "--db", "{db}"),
        E + r'd\.csv line 2, column "decision": expected accepted, rejected or deferred, got \'perhaps\'',
        files={"d.csv": f"source_url,target_url,decision\n{A},{B},perhaps\n"}, db="kept",
    ),
    Case(
        "review-import-binary", ("review", "import", "{tmp}/d.csv", "--db", "{db}"),
        E + r"d\.csv: cannot read: 'utf-8' codec can't decode byte 0x80 in position 128: invalid start byte",
        files={"d.csv": bytes(range(256))}, db="kept",
    ),
    Case("review-import-empty", ("review", "import", "{tmp}/d.csv", "--db", "{db}"), E + r"d\.csv: the file is empty", files={"d.csv": b""}, db="kept"),
    Case(
        "review-import-no-source-column", ("review", "import", "{tmp}/d.csv", "--db", "{db}"),
        E + r'd\.csv line 1, column "source_url": missing column \'source_url\'',
        files={"d.csv": f"src,dst\n{A},{B}\n"}, db="kept",
    ),
    Case(
        "review-import-unknown-pair-warns", ("review", "import", "{tmp}/d.csv", "--db", "{db}"),
        f"warning: {A} -> {NEW}: target matches no page of any crawl \\(recorded anyway\\)",
        files={"d.csv": f"source_url,target_url,decision\n{A},{NEW},accepted\n"},
        status=0, db="kept", added={"link_decisions": 1},
    ),
]  # fmt: skip

CASES = START_URL_CASES + DATABASE_CASES + ARGUMENT_CASES + CONFIG_CASES + REVIEW_CASES


@pytest.mark.parametrize("case", [case.param() for case in CASES])
def test_hostile_command_line(case: Case, check_case) -> None:
    check_case(case)
