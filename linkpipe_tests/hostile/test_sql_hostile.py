"""Hostile queries through the read-only door (`linkpipe sql`): every statement that could
write, read another file, attach, install or change a setting is refused in one line, mistakes
get DuckDB's message with its hint on one line, and the database keeps every row."""

from __future__ import annotations

import re

import pytest

from linkpipe_tests.hostile.conftest import Case

E = "linkpipe: error: query failed: "
DOOR = r"`linkpipe sql` is read-only and runs SELECT, EXPLAIN and PRAGMA queries only \(files: `linkpipe export`\)"
NO_FILES = r'Permission Error: Cannot access file "{path}" - file system operations are disabled by configuration'


def refused(kind: str) -> str:
    return E + kind + " statements cannot run here: " + DOOR


def no_file(path: str) -> str:
    return E + NO_FILES.replace("{path}", re.escape(path))


def sql(case_id: str, query: str, message: str, **kw: object) -> Case:
    argv = ("sql", "--db", "{db}", "--format", "csv", "--wait", "0", query)
    return Case(case_id, argv, message, db="kept", **kw)  # type: ignore[arg-type]


CASES = [
    sql("copy-to-file", "COPY crawl_links TO '{tmp}/out.csv'", refused("COPY"), absent=("out.csv",)),
    sql("copy-query-to-parquet", "COPY (SELECT 1) TO '{tmp}/o.parquet' (FORMAT parquet)", refused("COPY"), absent=("o.parquet",)),
    sql("export-database", "EXPORT DATABASE '{tmp}/dump'", refused("EXPORT"), absent=("dump",)),
    sql("attach-new-file", "ATTACH '{tmp}/other.duckdb' AS other", refused("ATTACH"), absent=("other.duckdb",)),
    sql("attach-itself-read-write", "ATTACH '{db}' AS again (READ_WRITE)", refused("ATTACH")),
    sql("attach-memory", "ATTACH ':memory:' AS scratch", refused("ATTACH")),
    sql("detach", "DETACH kept", refused("DETACH")),
    sql("install-extension", "INSTALL httpfs", refused("LOAD")),
    sql("load-extension-file", "LOAD '{tmp}/evil.duckdb_extension'", refused("LOAD")),
    sql("read-csv-passwd", "SELECT * FROM read_csv('/etc/passwd')", no_file("/etc/passwd")),
    sql("read-text-passwd", "SELECT * FROM read_text('/etc/passwd')", no_file("/etc/passwd")),
    sql("glob-etc", "SELECT * FROM glob('/etc/*')", no_file("/etc/*")),
    sql("read-parquet-http", "SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')", no_file("http://127.0.0.1:9/x.parquet")),
    sql("set-threads", "SET threads = 1", refused("SET")),
    sql("set-external-access-back-on", "SET enable_external_access = true", refused("SET")),
    sql("pragma-setting", "PRAGMA threads = 1", refused("SET")),
    sql("select-then-delete", "SELECT 1; DELETE FROM crawl_links", refused("DELETE")),
    sql("select-then-drop", "SELECT count(*) FROM crawls; DROP TABLE crawls", refused("DROP")),
    sql("create-temp-table", "CREATE TEMP TABLE t (a INTEGER)", refused("CREATE")),
    sql("update-rows", "UPDATE crawl_pages SET title = 'x'", refused("UPDATE")),
    sql("checkpoint", "CHECKPOINT", refused("CALL")),
    sql("begin-transaction", "BEGIN TRANSACTION", refused("TRANSACTION")),
    sql("syntax-error", "SELEC 1", E + 'Parser Error: syntax error at or near "SELEC"'),
    sql("unterminated-string", "SELECT 'abc", E + "Parser Error: unterminated string literal"),
    sql("table-typo-hint", "SELECT * FROM crawl_link", E + r'Catalog Error: Table with name crawl_link does not exist! Did you mean "crawl_links"\?'),
    sql("view-does-not-exist", "SELECT * FROM v_nope", E + r'Catalog Error: Table with name v_nope does not exist! Did you mean "v_\w+"\?'),
    sql("column-typo-hint", "SELECT titel FROM crawl_pages", E + r'Binder Error: Referenced column "titel" not found in FROM clause! Candidate bindings: "title".*'),
    sql("empty-query", "", E + "the query is empty"),
    sql("only-a-comment", "-- nothing here", E + "the query is empty"),
    sql("two-selects-print-the-last", "SELECT 1 AS a; SELECT 'second' AS b", "", status=0, out=r"^b\r?\nsecond\r?\n$"),
    sql("runs-view-lists-the-kept-crawl", "SELECT crawl_id, status FROM v_crawl_runs", "", status=0, out=r"kept,complete"),
]  # fmt: skip


@pytest.mark.parametrize("case", [case.param() for case in CASES])
def test_hostile_query(case: Case, check_case) -> None:
    check_case(case)
