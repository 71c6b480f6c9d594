"""`linkpipe whatif` on the chain site of the what-if tests: the printed summary, the rows it
writes, and one-line errors that create nothing."""

from __future__ import annotations

import duckdb
import pytest

from linkpipe.cli.main import main
from linkpipe_tests.lib.links.test_whatif import PAGES, A, E, build_chain_site, decide


def whatif(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["whatif", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_whatif_prints_the_summary_and_writes_whatif_pages(tmp_path, capsys):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    decide(db, A, E, "accepted")
    status, out, err = whatif(capsys, "--db", str(db), "--accepted")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[:3] == [
        "what-if on crawl c1, scenario accepted: 1 suggested link implemented",
        "orphan pages: 1 -> 0 (1 fixed)",
        "pages moved to click depth <= 3: 2",
    ]
    assert lines[3].startswith("PageRank Gini: 0.") and " -> 0." in lines[3]
    assert lines[4] == "biggest PageRank gains:"
    assert lines[5].endswith(f"  {E}") and lines[5].startswith("  +0.")
    assert lines[-1] == "wrote 6 rows to whatif_pages (crawl_id 'c1', scenario 'accepted')"

    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT url, click_depth_before, click_depth_after, is_orphan_before, "
            "is_orphan_after FROM whatif_pages ORDER BY url"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        (PAGES[0], 0, 0, False, False),
        (PAGES[1], 1, 1, False, False),
        (PAGES[2], 2, 2, False, False),
        (PAGES[3], 3, 3, False, False),
        (PAGES[4], 4, 3, False, False),
        (PAGES[5], None, 2, True, False),
    ]


def test_default_is_accepted_and_top_n_is_a_scenario(tmp_path, capsys):
    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    status, out, err = whatif(capsys, "--db", str(db))
    assert status == 1 and out == ""
    assert err == (
        "linkpipe: error: no accepted decisions between pages of crawl c1: record some with "
        "`linkpipe review`, or use --top N\n"
    )
    status, out, err = whatif(capsys, "--db", str(db), "--top", "2", "--crawl-id", "c1")
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == (
        "what-if on crawl c1, scenario top-2: 3 suggested links implemented"
    )


def test_errors_are_one_line_and_create_no_database(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "missing.duckdb"
    status, out, err = whatif(capsys, "--db", str(missing), "--top", "1")
    assert (status, out) == (1, "")
    assert err == f"linkpipe: error: database not found: {missing}\n"
    assert not missing.exists() and not missing.parent.exists()

    db = tmp_path / "chain.duckdb"
    build_chain_site(db)
    status, _, err = whatif(capsys, "--db", str(db), "--top", "1", "--crawl-id", "c9")
    assert (status, err) == (1, "linkpipe: error: unknown crawl: c9\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["whatif", "--db", str(db), "--accepted", "--top", "1"])
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
