"""The console script: queries, formats, and bad input as one clear line with exit status 1."""

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest

from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import open_db, write_partition


def linkpipe(*args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "linkpipe.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture()
def stored_db(tmp_path: Path) -> Path:
    db = tmp_path / "kept.duckdb"
    with open_db(db) as con:
        con.execute(
            "INSERT INTO crawls (crawl_id, start_url, source) VALUES ('old', 'http://x.test/', 'crawler')"
        )
        write_partition(
            con,
            "old",
            {
                "crawl_links": [
                    {
                        "source_url": "http://x.test/",
                        "target_url": "http://x.test/a/",
                        "anchor_text": 'A, "quoted"',
                    }
                ]
            },
        )
    return db


def test_sql_formats(stored_db: Path):
    out = linkpipe(
        "sql",
        "--db",
        str(stored_db),
        "--format",
        "csv",
        "SELECT source_url, anchor_text FROM crawl_links",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["source_url,anchor_text", 'http://x.test/,"A, ""quoted"""']
    tsv = linkpipe("sql", "--db", str(stored_db), "--format", "tsv", "SELECT 1 AS a, 'b' AS b")
    assert tsv.stdout.splitlines() == ["a\tb", "1\tb"]


def test_sql_is_read_only(stored_db: Path):
    out = linkpipe("sql", "--db", str(stored_db), "DELETE FROM crawl_links")
    assert out.returncode == 1
    assert out.stderr.startswith("linkpipe: error: query failed:") and "read-only" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def check_one_line_error(out: subprocess.CompletedProcess, *needles: str) -> None:
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert lines[-1].startswith("linkpipe: error:")
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    for needle in needles:
        assert needle in lines[-1]


def assert_untouched(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT crawl_id, count(*) FROM crawl_links GROUP BY ALL").fetchall() == [
        ("old", 1)
    ]
    con.close()


def test_unreachable_start_url(stored_db: Path, fake_model: str):
    out = linkpipe(
        "run", "http://127.0.0.1:9/", "--db", str(stored_db), "--crawl-id", "bad",
        "--model", fake_model,
    )  # fmt: skip
    check_one_line_error(out, "127.0.0.1:9")
    assert_untouched(stored_db)


def test_site_without_html(stored_db: Path, tmp_path: Path, fake_model: str):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_bytes(b"%PDF-1.4 not html")
    (site / "_routes.json").write_text('{"headers": {"/": {"Content-Type": "application/pdf"}}}')
    with serve_site(site) as served:
        out = linkpipe(
            "run", served.base_url + "/", "--db", str(stored_db), "--crawl-id", "nohtml",
            "--model", fake_model,
        )  # fmt: skip
    check_one_line_error(out)
    assert "html" in out.stderr.lower()
    assert_untouched(stored_db)


def test_unwritable_database_path(tmp_path: Path, fake_model: str):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = linkpipe(
        "run", "http://127.0.0.1:9/", "--db", str(blocker / "db.duckdb"), "--model", fake_model
    )
    check_one_line_error(out, "cannot open database")


def test_import_url_list_fetches_only_listed_pages(tmp_path: Path, demo_site, fake_model: str):
    urls = [
        demo_site.base_url + p
        for p in (
            "/blog/zombie-pages/",
            "/guides/content-pruning/",
            "/old-content-audit-checklist/",
        )
    ]
    listing = tmp_path / "urls.txt"
    listing.write_text("# pages to check\n" + "\n".join(urls) + "\n")
    db = tmp_path / "list.duckdb"
    out = linkpipe(
        "import", str(listing), "--db", str(db), "--crawl-id", "list-1", "--no-graph",
        "--model", fake_model,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    con = duckdb.connect(str(db), read_only=True)
    pages = con.execute(
        "SELECT url, status FROM crawl_pages WHERE crawl_id='list-1' ORDER BY url"
    ).fetchall()
    source = con.execute("SELECT source, start_url FROM crawls").fetchall()
    con.close()
    assert pages == [
        (demo_site.base_url + "/blog/zombie-pages/", 200),
        (demo_site.base_url + "/guides/content-audit-checklist/", 200),  # the redirect's target
        (demo_site.base_url + "/guides/content-pruning/", 200),
        (demo_site.base_url + "/old-content-audit-checklist/", 301),
    ]
    assert source == [("url_list", urls[0])]


def test_import_malformed_export_names_file_line_column(stored_db: Path, fake_model: str):
    bad = (
        Path(__file__).parents[1]
        / "lib"
        / "importers"
        / "fixtures"
        / "screaming_frog_bad"
        / "bad_status_code"
    )
    out = linkpipe("import", str(bad), "--db", str(stored_db), "--model", fake_model)
    check_one_line_error(out, "internal_all.csv line", 'column "Status Code"')
    assert_untouched(stored_db)
    con = duckdb.connect(str(stored_db), read_only=True)
    assert con.execute("SELECT crawl_id FROM crawls").fetchall() == [("old",)]
    con.close()


def test_crawl_with_settings_file(tmp_path: Path, demo_site, fake_model: str):
    settings = tmp_path / "site.toml"
    settings.write_text(
        "[crawl]\nmax_pages = 500\n[indexability]\nmin_words = 300\n[graph]\ndeep_threshold = 1\n"
    )
    db = tmp_path / "cfg.duckdb"
    out = linkpipe(
        "crawl",
        demo_site.base_url + "/",
        "--db",
        str(db),
        "--crawl-id",
        "cfg",
        "--config",
        str(settings),
        "--model",
        fake_model,
    )
    assert out.returncode == 0, out.stderr
    con = duckdb.connect(str(db), read_only=True)
    thin = con.execute("SELECT url FROM indexable_pages WHERE reason = 'thin'").fetchall()
    glossary_thin = [u for (u,) in thin if "/glossary/" in u]
    deep = con.execute(
        "SELECT count(*) FROM page_link_metrics WHERE is_deep AND click_depth = 2"
    ).fetchone()[0]
    con.close()
    assert len(glossary_thin) == 12  # glossary entries have 150-200 words: thin under a 300 floor
    assert deep > 0  # depth 2 counts as deep with deep_threshold = 1


def test_sql_reads_the_published_copy_while_a_run_holds_the_database(stored_db: Path):
    from linkpipe.lib.retention import publish_copy

    publish_copy(stored_db)
    writer = duckdb.connect(str(stored_db))  # a run in progress holds the write lock...
    writer.execute(
        "INSERT INTO crawl_links (crawl_id, source_url, target_url) VALUES ('new', 'a', 'b')"
    )
    try:  # ...and has written rows the published copy does not have yet
        out = linkpipe(
            "sql",
            "--db",
            str(stored_db),
            "--format",
            "csv",
            "SELECT count(*) AS n FROM crawl_links",
        )
    finally:
        writer.close()
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["n", "1"]


def test_eval_is_a_subcommand():
    from linkpipe.cli.eval import cmd_eval
    from linkpipe.cli.main import build_parser

    args = build_parser().parse_args(["eval", "gimp", "--seeds", "0", "1", "--fraction", "0.3"])
    assert args.func is cmd_eval and args.seeds == [0, 1] and args.fraction == 0.3


def test_run_whole_graph_with_the_fake_model(tmp_path: Path, demo_site, fake_model: str):
    db = tmp_path / "fast.duckdb"
    out = linkpipe(
        "run", demo_site.base_url + "/", "--db", str(db), "--crawl-id", "fast",
        "--model", fake_model,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    steps = [line[2:] for line in out.stderr.splitlines() if line.startswith("> ")]
    assert steps == [
        "crawl and link graph",
        "summaries and embeddings",
        "nearest-neighbour index and site models",
        "candidates and anchors",
        "scoring and clusters",
    ]
    # Not a terminal: plain lines, no cursor movement, one summary line per finished stage.
    assert "\r" not in out.stderr and "\x1b[" not in out.stderr
    crawled = [line for line in out.stderr.splitlines() if "pages fetched in" in line]
    assert len(crawled) == 1 and crawled[0].startswith("  crawl: ")
    assert out.stdout.startswith("crawl fast done: crawl and link graph ")
    con = duckdb.connect(str(db), read_only=True)
    models = con.execute("SELECT DISTINCT model_id FROM page_embeddings").fetchall()
    pages = con.execute("SELECT count(*) FROM crawl_pages WHERE crawl_id = 'fast'").fetchone()
    suggestions = con.execute(
        "SELECT count(*), count(DISTINCT source_url) FROM link_opportunities WHERE crawl_id = 'fast'"
    ).fetchone()
    reason = con.execute("SELECT reason FROM scoring_weights WHERE crawl_id = 'fast'").fetchone()
    con.close()
    assert models == [(fake_model,)] and reason is not None
    assert pages is not None and int(crawled[0].split()[1]) <= pages[0]
    assert suggestions is not None and suggestions[0] > 0 and suggestions[1] > 1
    (weights,) = [line for line in out.stdout.splitlines() if line.startswith("Scoring weights")]
    assert weights.startswith("Scoring weights (semantic 0.")
    assert weights.endswith(reason[0]) and reason[0].startswith(("50% fitted on", "defaults: "))
    published = duckdb.connect(str(tmp_path / "fast.published.duckdb"), read_only=True)
    assert (
        published.execute("SELECT count(*) FROM link_opportunities").fetchone() == suggestions[:1]
    )
    published.close()


def test_every_argument_has_a_help_text():
    import argparse

    from linkpipe.cli.main import build_parser

    def missing(parser: argparse.ArgumentParser, path: str) -> list[str]:
        found = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found += missing(sub, f"{path} {name}")
            elif not action.help:
                found.append(f"{path} {action.dest}")
        return found

    assert missing(build_parser(), "linkpipe") == []


def test_shared_options_parse_the_same_in_every_command(monkeypatch):
    from linkpipe.cli.main import build_parser

    monkeypatch.setenv("LINKPIPE_MODEL", "hashing-32")
    parser = build_parser()  # --model's default is read when the parser is built
    run = parser.parse_args(["run", "http://x.test/", "--db", "a.duckdb", "--max-pages", "5"])
    imported = parser.parse_args(["import", "urls.txt", "--db", "a.duckdb", "--model", "m"])
    evaluated = parser.parse_args(["eval", "gimp"])
    demo = parser.parse_args(["demo"])
    assert (run.db, run.max_pages, run.model, run.crawl_id) == ("a.duckdb", 5, "hashing-32", None)
    assert (imported.model, imported.config) == ("m", None)
    assert (evaluated.db, evaluated.max_pages, evaluated.model) == (None, 10_000, "hashing-32")
    assert demo.db.endswith("linkpipe.duckdb") and demo.top == 15


def test_keep_crawls_is_one_option_of_every_pipeline_command():
    from linkpipe.cli.main import build_parser

    parser = build_parser()
    commands = [
        ["demo"],
        ["run", "http://x.test/", "--db", "a.duckdb"],
        ["crawl", "http://x.test/", "--db", "a.duckdb"],
        ["import", "urls.txt", "--db", "a.duckdb"],
    ]
    assert [parser.parse_args(c).keep_crawls for c in commands] == [7, 7, 7, 7]
    assert [parser.parse_args([*c, "--keep-crawls", "2"]).keep_crawls for c in commands] == [2] * 4
    out = linkpipe("crawl", "http://x.test/", "--db", "a.duckdb", "--keep-crawls", "0")
    assert out.returncode == 2 and "must be at least 1, not 0" in out.stderr


def _small_run(
    command: str, site, db: Path, crawl_id: str, model: str, keep_crawls: int
) -> subprocess.CompletedProcess:
    """``linkpipe run|crawl`` of five pages of ``site``, asserted to succeed."""
    out = linkpipe(
        command, site.base_url + "/", "--db", str(db), "--crawl-id", crawl_id,
        "--max-pages", "5", "--model", model, "--keep-crawls", str(keep_crawls),
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out


def test_a_full_run_prunes_in_its_published_snapshot_and_says_which(
    tmp_path: Path, demo_site, fake_model: str
):
    db = tmp_path / "runs.duckdb"
    for crawl_id in ("r1", "r2"):
        out = _small_run("run", demo_site, db, crawl_id, fake_model, keep_crawls=1)
    assert "pruned 1 old crawl(s): r1" in out.stderr
    for path in (db, tmp_path / "runs.published.duckdb"):
        con = duckdb.connect(str(path), read_only=True)
        crawls = con.execute("SELECT crawl_id FROM crawls ORDER BY 1").fetchall()
        pages = con.execute("SELECT DISTINCT crawl_id FROM crawl_pages").fetchall()
        con.close()
        assert crawls == pages == [("r2",)]


def test_keep_crawls_prunes_old_crawls_after_the_run(
    tmp_path: Path, demo_site, fake_model: str, monkeypatch
):
    from linkpipe.defs.partitions import CRAWLS
    from linkpipe.defs.runner import instance_for
    from linkpipe.lib.mapped import mapped_root, shared_arrays

    db = tmp_path / "kept.duckdb"
    for crawl_id in ("n1", "n2", "n3"):
        if crawl_id == "n3":  # the shared arrays a candidate step of n1 and n2 left
            for old in ("n1", "n2"):
                shared_arrays(db, old, ("site context", "d"), lambda: {"a": np.zeros(2)})
        out = _small_run("crawl", demo_site, db, crawl_id, fake_model, keep_crawls=2)
    assert "pruned 1 old crawl(s): n1" in out.stderr
    con = duckdb.connect(str(db), read_only=True)
    kept = {
        table: con.execute(f"SELECT DISTINCT crawl_id FROM {table} ORDER BY 1").fetchall()
        for table in ("crawls", "crawl_pages", "crawl_links", "indexable_pages", "link_edges")
    }
    con.close()
    assert kept == dict.fromkeys(kept, [("n2",), ("n3",)])
    folders = [p for p in mapped_root(db).iterdir() if p.is_dir()]
    left = [json.loads((p / "arrays.json").read_text())["crawl_id"] for p in folders]
    assert left == ["n2"]  # n1's went with it
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))  # restored after the test
    assert sorted(instance_for(db).get_dynamic_partitions(CRAWLS)) == ["n2", "n3"]
