"""One bounded run of `linkpipe eval` on the bundled demo site, with the real model."""

import argparse
import json
from pathlib import Path

import pytest

from linkpipe.cli.eval import add_eval_parser
from linkpipe.evaluation import harness
from linkpipe.evaluation.link_removal import content_link_pairs
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL

pytestmark = pytest.mark.slow

DEMO_SITE = Path(__file__).resolve().parents[2] / "linkpipe" / "demo_site"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="linkpipe")
    add_eval_parser(parser.add_subparsers(dest="command", required=True))
    return parser


def test_eval_parser_defaults_and_options():
    args = _parser().parse_args(["eval", "gimp"])
    defaults = {"site_root": "gimp", "seeds": [0, 1, 2], "fraction": 0.2, "db": None, "json": None}
    assert {k: getattr(args, k) for k in defaults} == defaults
    args = _parser().parse_args(
        ["eval", "site", "--seeds", "3", "4", "--fraction", "0.1", "--db", "x.duckdb",
         "--max-pages", "50", "--model", "m", "--json", "r.json"]
    )  # fmt: skip
    given = {"seeds": [3, 4], "fraction": 0.1, "db": "x.duckdb", "max_pages": 50, "model": "m"}
    assert {k: getattr(args, k) for k in given} == given and args.json == "r.json"
    assert args.func.__name__ == "cmd_eval"
    assert harness.site_root_of(str(DEMO_SITE)) == DEMO_SITE
    with pytest.raises(FileNotFoundError):
        harness.site_root_of("/no/such/site")


def test_eval_run_on_the_demo_site(tmp_path, capsys):
    db, report_path = tmp_path / "eval.duckdb", tmp_path / "report.json"
    args = _parser().parse_args(
        ["eval", str(DEMO_SITE), "--seeds", "0", "--fraction", "0.3", "--db", str(db),
         "--max-pages", "30", "--model", DEFAULT_MODEL, "--json", str(report_path)]
    )  # fmt: skip
    args.func(args)
    printed = capsys.readouterr().out
    assert "| linkpipe |" in printed and "| cocitation |" in printed
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["seeds"] == [0] and report["fraction"] == 0.3
    assert set(report["mean"]) == set(harness.METHODS)
    (run,) = report["runs"]
    assert run["crawl_id"] == "eval-s0"
    assert run["removed_pairs"] == round(0.3 * len(content_link_pairs(DEMO_SITE)))
    assert 0 < run["truth_pairs"] <= run["removed_pairs"] <= run["removed_links"]
    assert 0 < run["indexable_pages"] <= 30 and run["html_pages"] == 74
    assert len(run["pairs"]) == run["truth_pairs"]
    for method in harness.METHODS:
        metrics = run["metrics"][method]
        assert set(harness.COLUMNS) <= set(metrics)
        assert metrics["repeat_share"] == 0
        assert metrics["pairs"] == run["truth_pairs"]
        for k in ("recall@1", "recall@5", "recall@10", "precision@10"):
            assert 0.0 <= metrics[k] <= 1.0
        assert metrics["recall@1"] <= metrics["recall@5"] <= metrics["recall@10"]
    linkpipe = run["metrics"]["linkpipe"]
    assert isinstance(linkpipe["recall@10"], float) and 0.0 <= linkpipe["recall@10"] <= 1.0
    assert 0.0 <= linkpipe["anchor_overlap"] <= 1.0
    assert run["metrics"]["tfidf"]["anchor_overlap"] is None
    assert 0 < linkpipe["in_sentence_anchors"] <= linkpipe["suggestions"]
    assert linkpipe["in_sentence"] == linkpipe["in_sentence_anchors"] / linkpipe["suggestions"]
    assert run["metrics"]["tfidf"]["in_sentence"] is None
    assert 0.0 <= run["metrics"]["linkpipe-defaults"]["anchor_overlap"] <= 1.0
    for pair in run["pairs"]:
        assert pair["source"] != pair["target"] and pair["link_texts"]
        rank = pair["linkpipe"]
        assert rank is None or 1 <= rank <= 10
    assert report["mean"]["linkpipe"]["recall@10"] == linkpipe["recall@10"]
    # the stored crawl evaluates again to the same figures (the removal is seeded)
    metrics, pairs, counts = harness.load_stored_eval(DEMO_SITE, db, 0, 0.3).evaluate()
    assert json.loads(json.dumps(metrics)) == run["metrics"] and pairs == run["pairs"]
    assert counts["truth_pairs"] == run["truth_pairs"]
    assert 0 < run["recall10_ceiling"] <= 1.0
    assert linkpipe["recall@10"] <= run["recall10_ceiling"]
