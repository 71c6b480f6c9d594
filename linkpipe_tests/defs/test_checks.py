"""Blocking asset checks: each rule on passing and failing rows of a real DuckDB file, the same
rules evaluated by Dagster through the DuckDB resource, and a failing check stopping the
runner with one line naming it."""

from pathlib import Path

import dagster as dg
import faiss
import numpy as np
import pytest
from dagster_duckdb import DuckDBResource

from linkpipe.defs.assets import ALL_ASSETS
from linkpipe.defs.checks import ALL_CHECKS
from linkpipe.defs.partitions import CRAWLS
from linkpipe.defs.resources import LinkpipeSettings, resources_for
from linkpipe.defs.runner import RunFailed, run_graph
from linkpipe.lib import checks
from linkpipe.lib.hashing import text_hash
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.storage import open_db, write_partition
from linkpipe.lib.vectors.ann import build_index, serialize

CRAWL = "c1"
SITE = "http://s.test/"


def _write(db: Path, tables: dict[str, list[dict]], shard: int | None = None) -> None:
    with open_db(db) as con:
        write_partition(con, CRAWL, tables, shard=shard)


def _check(db: Path, fn, *args) -> checks.CheckOutcome:
    with open_db(db, read_only=True) as con:
        return fn(con, *args)


# --- unique URLs per crawl -------------------------------------------------------------------


@pytest.mark.parametrize("table", ["crawl_pages", "indexable_pages"])
def test_unique_urls_pass_and_fail(tmp_path, table):
    db = tmp_path / "u.duckdb"
    extra = {"indexable": True} if table == "indexable_pages" else {}
    rows = [{"url": f"{SITE}{p}", "shard": 0, **extra} for p in ("a", "b")]
    _write(db, {table: rows})
    ok = _check(db, checks.unique_urls, table, CRAWL)
    assert ok.passed and ok.description == f"2 URLs in {table}, each once"
    assert ok.metadata == {"urls": 2, "rows": 2, "duplicated_urls": 0}

    _write(db, {table: [*rows, rows[1], rows[1]]})
    bad = _check(db, checks.unique_urls, table, CRAWL)
    assert not bad.passed
    assert bad.metadata == {"urls": 2, "rows": 4, "duplicated_urls": 1, "examples": [f"{SITE}b"]}
    assert bad.description == (
        f"URLs with more than one row in {table} of crawl {CRAWL}: 1 (e.g. {SITE}b)"
    )


# --- one vector per embedded page ------------------------------------------------------------


def _summaries() -> list[dict]:
    return [
        {"url": f"{SITE}a", "summary": "about a", "summary_hash": text_hash("about a")},
        {"url": f"{SITE}b", "summary": "", "summary_hash": text_hash("")},  # nothing to embed
        {"url": f"{SITE}c", "summary": "about c", "summary_hash": text_hash("about c")},
    ]


def _vector(url: str, summary: str) -> dict:
    return {
        "url": url,
        "text_hash": text_hash(summary),
        "model_id": "hashing-4",
        "embedding": [1.0, 0.0, 0.0, 0.0],
    }


def test_vectors_match_pages_pass_and_fail(tmp_path):
    db = tmp_path / "v.duckdb"
    vectors = [_vector(f"{SITE}a", "about a"), _vector(f"{SITE}c", "about c")]
    _write(db, {"page_summaries": _summaries(), "page_embeddings": vectors}, shard=1)
    ok = _check(db, checks.vectors_match_pages, CRAWL, 1)
    assert ok.passed and ok.description == "2 vectors for 2 summarised pages"
    assert ok.metadata["pages"] == 2 and ok.metadata["vectors"] == 2

    # c has no vector, a's vector is of an older summary, d has a vector but no page
    wrong = [_vector(f"{SITE}a", "old a"), _vector(f"{SITE}d", "about d")]
    _write(db, {"page_summaries": _summaries(), "page_embeddings": wrong}, shard=1)
    bad = _check(db, checks.vectors_match_pages, CRAWL, 1)
    assert not bad.passed
    assert {k: bad.metadata[k] for k in bad.metadata if k != "examples"} == {
        "pages": 2,
        "vectors": 2,
        "pages_without_vector": 1,
        "vectors_without_page": 1,
        "pages_with_several_vectors": 0,
        "stale_vectors": 1,
    }
    assert bad.metadata["examples"] == [
        f"not the summary's vector: {SITE}a",
        f"no vector: {SITE}c",
        f"no summary: {SITE}d",
    ]
    assert bad.description == (
        f"vectors of crawl {CRAWL} shard 1 that do not match its 2 summarised pages: 3 (e.g. "
        f"not the summary's vector: {SITE}a; no vector: {SITE}c; no summary: {SITE}d)"
    )
    # another shard is not this shard's business
    assert _check(db, checks.vectors_match_pages, CRAWL, 0).passed


# --- FAISS rows = vectors --------------------------------------------------------------------


def _index_row(n: int) -> dict:
    vectors = np.eye(4, dtype=np.float32)[:n]
    urls = [f"{SITE}{i}" for i in range(n)]
    ann = build_index(vectors, urls)
    return {
        "n_vectors": n,
        "dim": 4,
        "index_kind": ann.kind,
        "urls": urls,
        "index_blob": serialize(ann),
    }


def test_faiss_rows_are_read_from_the_serialized_index():
    x = np.random.default_rng(0).random((300, 8), dtype=np.float32)
    flat = faiss.IndexFlatIP(8)
    flat.add(x)
    ivf = faiss.IndexIVFFlat(faiss.IndexFlatIP(8), 8, 4, faiss.METRIC_INNER_PRODUCT)
    ivf.train(x)
    ivf.add(x[:123])
    for index, rows in ((flat, 300), (ivf, 123)):
        assert checks.faiss_rows(faiss.serialize_index(index).tobytes()[:16]) == rows


def test_faiss_rows_match_vectors_pass_and_fail(tmp_path):
    db = tmp_path / "f.duckdb"
    vectors = [_vector(f"{SITE}{i}", str(i)) for i in range(3)]
    _write(db, {"page_embeddings": vectors}, shard=0)
    missing = _check(db, checks.faiss_rows_match_vectors, CRAWL)
    assert not missing.passed
    assert missing.description == f"crawl {CRAWL} has 0 stored FAISS indexes, not 1"

    _write(db, {"ann_indexes": [_index_row(3)]})
    ok = _check(db, checks.faiss_rows_match_vectors, CRAWL)
    assert ok.passed and ok.description == "3 FAISS rows for as many vectors"
    assert ok.metadata == {
        "faiss_rows": 3,
        "n_vectors": 3,
        "urls": 3,
        "vectors": 3,
        "urls_without_vector": 0,
    }

    stale = {**_index_row(2), "n_vectors": 3, "urls": [f"{SITE}0", f"{SITE}1", f"{SITE}x"]}
    _write(db, {"ann_indexes": [stale]})
    bad = _check(db, checks.faiss_rows_match_vectors, CRAWL)
    assert not bad.passed
    assert bad.description == (
        f"FAISS index of crawl {CRAWL} does not match its vectors: faiss_rows 2, n_vectors 3, "
        "urls 3, vectors 3, urls_without_vector 1"
    )


# --- no self or already linked pairs ---------------------------------------------------------


def _edge(source: str, target: str, position: str) -> dict:
    return {
        "source_url": SITE + source,
        "target_url": SITE + target + "?old",
        "resolved_url": SITE + target,
        "position": position,
    }


def _pair(source: str, target: str, rank: int = 1, **extra) -> dict:
    return {"source_url": SITE + source, "target_url": SITE + target, "rank": rank, **extra}


def test_no_self_or_linked_pairs_pass_and_fail(tmp_path):
    db = tmp_path / "o.duckdb"
    edges = [_edge("a", "b", "content"), _edge("a", "c", "navigation")]
    # a -> c is only linked from the navigation: a fine suggestion
    _write(db, {"link_edges": edges, "link_opportunities": [_pair("a", "c"), _pair("b", "a")]})
    ok = _check(db, checks.no_self_or_linked_pairs, CRAWL)
    assert ok.passed
    assert ok.metadata == {"pairs": 2, "self_pairs": 0, "already_linked_pairs": 0}

    pairs = [_pair("a", "c"), _pair("a", "b", 2), _pair("c", "c")]
    _write(db, {"link_edges": edges, "link_opportunities": pairs})
    bad = _check(db, checks.no_self_or_linked_pairs, CRAWL)
    assert not bad.passed
    assert bad.metadata == {
        "pairs": 3,
        "self_pairs": 1,
        "already_linked_pairs": 1,
        "examples": [f"already linked: {SITE}a -> {SITE}b", f"self: {SITE}c -> {SITE}c"],
    }
    assert bad.description == (
        f"suggestions of crawl {CRAWL} to the page itself: 1, to a target the source already "
        f"links in its content: 1 (e.g. already linked: {SITE}a -> {SITE}b; "
        f"self: {SITE}c -> {SITE}c)"
    )


# --- in-sentence anchors inside their sentences ----------------------------------------------

MAIN_TEXT = "Café ☕ guide for beginners. Read our brewing guide today. More later."
SENTENCE = "Read our brewing guide today."


def _placed(anchor: str, start: int, sentence: str = SENTENCE, target: str = "t") -> dict:
    return _pair(
        "s",
        target,
        anchor_text=anchor,
        anchor_start=start,
        anchor_end=start + len(anchor),
        sentence=sentence,
        placement="in_sentence",
    )


def _anchor_db(db: Path, opportunities: list[dict]) -> None:
    summary = {"url": SITE + "s", "main_text": MAIN_TEXT, "summary": "s"}
    _write(db, {"page_summaries": [summary]}, shard=2)
    _write(db, {"link_opportunities": opportunities})


def test_anchors_inside_sentences_pass(tmp_path):
    db = tmp_path / "a.duckdb"
    start = MAIN_TEXT.index("brewing guide")
    first = "Café ☕ guide for beginners."
    good = [
        _placed("brewing guide", start),
        _placed("Read", MAIN_TEXT.index("Read"), target="t2"),  # at the sentence start
        _placed("☕ guide", MAIN_TEXT.index("☕"), first, "t3"),  # offsets count characters
        _pair("s", "t4", placement="needs_new_sentence", anchor_text="guide"),  # not placed
    ]
    _anchor_db(db, good)
    ok = _check(db, checks.anchors_inside_sentences, CRAWL)
    assert ok.passed and ok.metadata == {"anchors": 3, "misplaced": 0}
    assert ok.description == "3 in-sentence anchors, each inside its sentence"


def test_anchors_inside_sentences_fail(tmp_path):
    db = tmp_path / "a.duckdb"
    start = MAIN_TEXT.index("brewing guide")
    bad = [
        _placed("brewing guide", start + 1, target="t1"),  # offsets one character off
        _placed("guide", MAIN_TEXT.index("guide"), target="t2"),  # "guide" of another sentence
        _placed("brewing guide", start, "Read our coffee guide today.", "t3"),  # wrong sentence
        _placed("brewing guide", start, target="t4"),  # fine
    ]
    _anchor_db(db, bad)
    outcome = _check(db, checks.anchors_inside_sentences, CRAWL)
    assert not outcome.passed
    assert outcome.metadata == {
        "anchors": 4,
        "misplaced": 3,
        "examples": [
            f"the text at the offsets is not the anchor: {SITE}s -> {SITE}t1",
            f"the anchor is not inside its sentence: {SITE}s -> {SITE}t2",
            f"the anchor is not inside its sentence: {SITE}s -> {SITE}t3",
        ],
    }
    assert outcome.description.startswith(
        f"misplaced in-sentence anchors of crawl {CRAWL}: 3 of 4 (e.g. the text at the offsets"
    )


# --- as Dagster asset checks -----------------------------------------------------------------


def _failing_db(db: Path) -> None:
    """Rows that break every check of a crawl-level asset (shard 0 breaks the vector check)."""
    page = {"url": SITE + "s", "shard": 0, "indexable": True}
    _write(db, {"crawl_pages": [page, page], "indexable_pages": [page, page]})
    _write(db, {"page_summaries": _summaries(), "page_embeddings": []}, shard=0)
    _write(db, {"link_edges": [_edge("s", "t", "content")]})
    _anchor_db(db, [_placed("brewing guide", 3)])  # s -> t: misplaced and already linked


def _evaluate_checks(db: Path, selection: dg.AssetSelection, key: str):
    """Run only the checks of ``selection`` on partition ``key``, as the UI's "execute check"
    does (the run is tagged with the partition)."""
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(CRAWLS, [CRAWL])
    defs = dg.Definitions(
        assets=ALL_ASSETS,
        asset_checks=ALL_CHECKS,
        jobs=[dg.define_asset_job("checks_only", selection)],
        resources=resources_for(LinkpipeSettings(db_path=str(db))),
    )
    result = defs.resolve_job_def("checks_only").execute_in_process(
        instance=instance, tags={"dagster/partition": key}, raise_on_error=False
    )
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


SITE_CHECKS = dg.AssetSelection.checks(
    *(c for c in ALL_CHECKS if c.check_key.name != "vectors_match_pages")
)
PAGE_CHECKS = dg.AssetSelection.checks(
    *(c for c in ALL_CHECKS if c.check_key.name == "vectors_match_pages")
)


def test_dagster_evaluates_the_checks_through_the_duckdb_resource(tmp_path):
    db = tmp_path / "d.duckdb"
    _failing_db(db)
    found = _evaluate_checks(db, SITE_CHECKS, CRAWL)
    assert sorted(found) == [
        "anchors_inside_sentences",
        "crawl_urls_unique",
        "faiss_rows_match_vectors",
        "indexable_urls_unique",
        "no_self_or_linked_pairs",
    ]
    for evaluation in found.values():
        assert not evaluation.passed and evaluation.blocking
        assert evaluation.severity == dg.AssetCheckSeverity.ERROR
    assert found["crawl_urls_unique"].description == (
        f"URLs with more than one row in crawl_pages of crawl {CRAWL}: 1 (e.g. {SITE}s)"
    )
    assert found["no_self_or_linked_pairs"].metadata["already_linked_pairs"].value == 1
    assert found["no_self_or_linked_pairs"].metadata["examples"].value == [
        f"already linked: {SITE}s -> {SITE}t"
    ]
    shard_key = dg.MultiPartitionKey({"crawl": CRAWL, "shard": "0"})
    page = _evaluate_checks(db, PAGE_CHECKS, shard_key)["vectors_match_pages"]
    assert not page.passed and page.metadata["pages_without_vector"].value == 2
    other_shard = dg.MultiPartitionKey({"crawl": CRAWL, "shard": "3"})
    assert _evaluate_checks(db, PAGE_CHECKS, other_shard)["vectors_match_pages"].passed


def test_the_resource_is_dagster_duckdb_on_the_settings_database(tmp_path):
    resources = resources_for(LinkpipeSettings(db_path=str(tmp_path / "r.duckdb")))
    assert isinstance(resources["duckdb"], DuckDBResource)
    assert resources["duckdb"].database == str(tmp_path / "r.duckdb")


# --- in the runner (the CLI's path) ----------------------------------------------------------


def test_a_failing_check_stops_the_run_with_one_line_naming_it(tmp_path, fake_model):
    # two workers: the other shard's worker is ended too (it defers SIGTERM inside a run)
    db = tmp_path / "r" / "linkpipe.duckdb"
    register_crawl(db, CRAWL, SITE, "crawler", "", {})
    summary = {"url": SITE + "a", "summary": "about a", "summary_hash": text_hash("about a")}
    _write(db, {"page_summaries": [summary, summary]}, shard=1)  # one page, two rows
    with pytest.raises(RunFailed) as failed:
        run_graph(db, CRAWL, fake_model, stages=("page_embeddings",), workers=2)
    message = str(failed.value)
    assert message == (
        "check vectors_match_pages of page_embeddings failed: vectors of crawl "
        f"{CRAWL} shard 1 that do not match its 2 summarised pages: 1 "
        f"(e.g. several vectors: {SITE}a)"
    )
    with open_db(db, read_only=True) as con:
        row = con.execute(
            "SELECT status, error FROM crawl_runs WHERE crawl_id = ?", [CRAWL]
        ).fetchone()
    assert row == ("failed", message)
