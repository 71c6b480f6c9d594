"""End to end on the bundled demo site (hashing embedder): at least 90 % of the in-sentence
anchors are well-formed phrases of their sentence (issue 11), with exact offsets, and
`linkpipe eval DB.duckdb` reports the share of a stored crawl."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from linkpipe.cli.eval import add_eval_parser
from linkpipe.evaluation.anchor_quality import database_anchor_quality, sentence_span
from linkpipe.lib.storage import open_db
from linkpipe_tests.graph import crawl_and_run

CRAWL = "demo-anchors"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory, demo_site, fake_model) -> Path:
    db = tmp_path_factory.mktemp("anchors") / "demo.duckdb"
    crawl_and_run(db, CRAWL, demo_site.base_url + "/", fake_model, 120, "link_opportunities")
    return db


def test_anchors_are_well_formed_phrases_at_exact_offsets(demo_db) -> None:
    with open_db(demo_db) as con:
        rows = con.execute(
            "SELECT o.anchor_text, o.anchor_start, o.anchor_end, o.sentence, s.main_text "
            "FROM link_opportunities o JOIN page_summaries s "
            "ON s.crawl_id = o.crawl_id AND s.url = o.source_url "
            "WHERE o.crawl_id = ? AND o.placement = 'in_sentence'",
            [CRAWL],
        ).fetchall()
    assert len(rows) >= 50
    for anchor, start, end, sentence, main_text in rows:
        assert main_text[start:end] == anchor
        placed = sentence_span(main_text, sentence, start, end)
        assert placed is not None and sentence[placed[1] : placed[2]] == anchor
    crawl, quality = database_anchor_quality(demo_db, CRAWL)
    assert crawl == CRAWL and quality.parsed and quality.anchors == len(rows)
    assert quality.share is not None and quality.share >= 0.9, quality.rejected


def test_eval_command_reports_a_databases_share(demo_db, capsys) -> None:
    parser = argparse.ArgumentParser(prog="linkpipe")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", str(demo_db), "--crawl-id", CRAWL])
    args.func(args)
    out = capsys.readouterr().out
    assert f"crawl {CRAWL}" in out
    assert "Well-formed anchors: " in out and "in-sentence anchors" in out
