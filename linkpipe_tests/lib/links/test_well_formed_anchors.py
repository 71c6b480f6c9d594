"""End to end on the bundled demo site (hashing embedder): at least 90 % of the in-sentence
anchors are well-formed phrases of their sentence (issue 11), with exact offsets, and
`linkpipe eval DB.duckdb` reports the share of a stored crawl."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from linkpipe.cli.eval import add_eval_parser
from linkpipe.evaluation.anchor_quality import database_anchor_quality, sentence_span
from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.stages.ann_index import materialize_ann_index
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.stages.indexable_pages import materialize_indexable_pages
from linkpipe.lib.stages.link_graph import materialize_link_graph
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.stages.page_embeddings import materialize_page_embeddings
from linkpipe.lib.stages.page_summaries import materialize_page_summaries
from linkpipe.lib.stages.site_models import materialize_site_models
from linkpipe.lib.storage import open_db

CRAWL = "demo-anchors"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory, demo_site, fake_model) -> Path:
    db = tmp_path_factory.mktemp("anchors") / "demo.duckdb"
    register_crawl(db, CRAWL, demo_site.base_url + "/", "crawler", "", {"max_pages": 120})
    materialize_crawl_export(db, CRAWL, DEFAULT_SHARDS)
    materialize_indexable_pages(db, CRAWL)
    materialize_link_graph(db, CRAWL)
    for shard in range(DEFAULT_SHARDS):
        materialize_page_summaries(db, CRAWL, shard)
        materialize_page_embeddings(db, CRAWL, shard, fake_model)
    materialize_ann_index(db, CRAWL, fake_model)
    materialize_site_models(db, CRAWL)
    for shard in range(DEFAULT_SHARDS):
        materialize_candidate_pairs(db, CRAWL, shard, fake_model)
    materialize_link_opportunities(db, CRAWL)
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
