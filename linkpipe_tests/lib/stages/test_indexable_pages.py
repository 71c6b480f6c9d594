"""indexable_pages on a real crawl of a short-page reference site (loopback, real DuckDB file):
the thresholds measured on the site are stored with the crawl and quoted in each exclusion, a
number in the crawl's settings wins, and a database made before the thresholds table gains
it."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from linkpipe.defs.metadata import thresholds_metadata
from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.stages.indexable_pages import (
    load_indexability_thresholds,
    materialize_indexable_pages,
)
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import open_db
from linkpipe_tests.lib.content.test_site_thresholds import (
    REFERENCE_WORDS,
    demo_articles,
    html_page,
)

BOUNDS = {"max_pages": 40, "total_time_s": 60.0, "request_timeout_s": 5.0}


def write_reference_site(root: Path) -> None:
    """A home page, 17 reference pages of 32..80 words (median 56) and a 5-word stub."""
    articles = demo_articles()
    names = [f"option-{i}" for i in range(len(REFERENCE_WORDS))] + ["moved"]
    for i, words in enumerate(REFERENCE_WORDS):
        body = f"<h1>Option {i}</h1><p>{' '.join(articles[i][: words - 2])}</p>"
        (root / "ref" / names[i]).mkdir(parents=True)
        (root / "ref" / names[i] / "index.html").write_text(html_page(f"Option {i}", body))
    (root / "ref" / "moved").mkdir()
    moved = "<h1>Moved</h1><p>see the new index</p>"
    (root / "ref" / "moved" / "index.html").write_text(html_page("Moved", moved))
    links = "".join(f'<li><a href="/ref/{n}/">{n.replace("-", " ")}</a></li>' for n in names)
    intro = " ".join(articles[20][:90])
    home = f"<h1>Acme reference</h1><p>{intro}</p><ul>{links}</ul>"
    (root / "index.html").write_text(html_page("Acme reference", home))


@pytest.fixture(scope="module")
def crawled_db(tmp_path_factory):
    """Two crawls of the site: c1 with auto thresholds, c2 with ``min_words = 60``."""
    tmp = tmp_path_factory.mktemp("indexable")
    write_reference_site(tmp / "site")
    db = tmp / "linkpipe.duckdb"
    results = {}
    with serve_site(tmp / "site") as site:
        for crawl_id, settings in (("c1", {}), ("c2", {"indexability": {"min_words": 60}})):
            register_crawl(db, crawl_id, site.base_url + "/", "crawler", "", BOUNDS | settings)
            materialize_crawl_export(db, crawl_id, DEFAULT_SHARDS)
            results[crawl_id] = materialize_indexable_pages(db, crawl_id)
        yield db, site.base_url, results


def rows(db: Path, sql: str, *params: object) -> list[tuple]:
    with open_db(db) as con:
        return con.execute(sql, list(params)).fetchall()


def test_short_reference_pages_stay_targets_and_the_thresholds_are_stored(crawled_db):
    db, base, results = crawled_db
    counts = rows(
        db,
        "SELECT count(*) FILTER (indexable), count(*) FROM indexable_pages "
        "WHERE crawl_id = 'c1' AND url LIKE '%/ref/option-%'",
    )
    assert counts == [(17, 17)]
    excluded = rows(
        db,
        "SELECT url, reason, detail FROM v_excluded_pages_all WHERE crawl_id = 'c1' ORDER BY url",
    )
    assert excluded == [
        (f"{base}/{section}/", "http_404", "") for section in ("about", "blog", "docs")
    ] + [(f"{base}/ref/moved/", "thin", "5 words, page threshold 27 (0.5 x median 54.5 words)")]
    with open_db(db) as con:
        stored = load_indexability_thresholds(con, "c1")
    assert [{k: v for k, v in t.items() if k != "median"} for t in stored] == [
        {
            "rule": "listing",
            "page_type": None,
            "threshold": 0.5,
            "mode": "auto",
            "pages": 18,
            "basis": "floor 50%, above median 0% + 30 points",
        },
        {
            "rule": "thin",
            "page_type": None,
            "threshold": 28.0,
            "mode": "auto",
            "pages": 19,
            "basis": "0.5 x median 56 words",
        },
        {
            "rule": "thin",
            "page_type": "page",
            "threshold": 27.0,
            "mode": "auto",
            "pages": 18,
            "basis": "0.5 x median 54.5 words",
        },
        {
            "rule": "near_duplicate",
            "page_type": None,
            "threshold": 3.0,
            "mode": "auto",
            "pages": 18,
            "basis": stored[3]["basis"],
        },
    ]
    assert [t["median"] for t in stored[:3]] == [0.0, 56.0, 54.5] and stored[3]["median"] > 15
    assert stored[3]["basis"].startswith("cap 3, below median nearest distance ")


def test_the_run_metadata_shows_the_thresholds(crawled_db):
    _, _, results = crawled_db
    meta = results["c1"].meta
    # home, 17 reference pages, the stub and the three navigation links that answer 404
    assert results["c1"].rows == {
        "indexable_pages": 22,
        "indexability_thresholds": 4,
        "indexable_inputs": 1,
    }
    assert (
        meta["thin_threshold_words"],
        meta["listing_threshold_link_share"],
        meta["near_duplicate_threshold_bits"],
    ) == (28, 0.5, 3)
    assert meta["by_reason"] == {"indexable": 18, "thin": 1, "http_404": 3}
    table = thresholds_metadata(meta["thresholds"])["thresholds_table"].value
    assert table.splitlines()[:4] == [
        "| rule | page_type | threshold | mode | pages | basis |",
        "|---|---|---|---|---|---|",
        "| listing | (site) | 0.5 | auto | 18 | floor 50%, above median 0% + 30 points |",
        "| thin | (site) | 28 | auto | 19 | 0.5 x median 56 words |",
    ]


def test_a_number_in_the_crawl_settings_wins(crawled_db):
    db, base, results = crawled_db
    thin = rows(
        db,
        "SELECT url, detail FROM indexable_pages WHERE crawl_id = 'c2' AND reason = 'thin' "
        "ORDER BY word_count",
    )
    assert len(thin) == 11  # the stub and the ten reference pages under 60 words
    assert thin[:2] == [
        (f"{base}/ref/moved/", "5 words, site threshold 60 (set in config)"),
        (f"{base}/ref/option-0/", "32 words, site threshold 60 (set in config)"),
    ]
    assert rows(
        db,
        "SELECT rule, threshold, mode, basis FROM indexability_thresholds "
        "WHERE crawl_id = 'c2' AND rule = 'thin'",
    ) == [("thin", 60.0, "config", "set in config")]
    assert results["c2"].meta["thin_threshold_words"] == 60


def test_a_database_made_before_the_thresholds_table_gains_it(crawled_db, tmp_path):
    db, _, _ = crawled_db
    old = tmp_path / "old.duckdb"
    shutil.copy(db, old)
    con = duckdb.connect(str(old))
    con.execute("DROP TABLE indexability_thresholds")
    con.execute("UPDATE linkpipe_schema SET sql_hash = 'before indexability_thresholds'")
    con.close()
    result = materialize_indexable_pages(old, "c1")
    assert result.rows["indexability_thresholds"] == 4
    assert rows(old, "SELECT count(*) FROM indexability_thresholds WHERE crawl_id = 'c1'") == [(4,)]
    assert rows(old, "SELECT count(*) FROM indexable_pages WHERE crawl_id = 'c2'") == [(22,)]
