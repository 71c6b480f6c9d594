"""The editor's report without a browser: what gather_report reads and computes equals the
database (suggestions, anchors in their sentences, inlinks before/after, what-if, orphans,
deep pages, clusters, crawl diff), the page escapes crawled text, and `linkpipe report` writes
a folder that needs no server and no internet, or one error line and nothing at all."""

import hashlib
import re
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest

from linkpipe.cli.main import main
from linkpipe.lib.report.build import gather_report
from linkpipe.lib.report.data import ReportError
from linkpipe.lib.report.figures import project_2d
from linkpipe.lib.report.render import render_html, write_report
from linkpipe.lib.storage import connect
from linkpipe_tests.report.conftest import CRAWL, EARLIER

pytestmark = pytest.mark.slow  # the fixture runs the graph with the real model


def rows(db: Path, sql: str, *params) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def report_of(db: Path, crawl_id: str | None = None, **limits):
    con = connect(db, read_only=True)
    try:
        return gather_report(con, crawl_id, **limits)
    finally:
        con.close()


def test_suggestions_are_the_crawls_best_with_the_anchor_at_its_place(report_db: Path):
    report = report_of(report_db)
    expected = rows(
        report_db,
        """SELECT source_url, target_url, score, confidence, anchor_text,
        sentence, placement FROM v_opportunities ORDER BY score DESC, source_url, target_url""",
    )
    assert report.crawl.crawl_id == CRAWL and report.suggestions_total == len(expected) > 50
    got = [(s.source_url, s.target_url, s.score, s.confidence, s.anchor_text, s.sentence,
            s.placement) for s in report.suggestions]  # fmt: skip
    assert got == expected
    placed = [s for s in report.suggestions if s.placement == "in_sentence"]
    assert len(placed) > 40
    for s in placed:
        before, anchor, after = s.sentence_parts()
        assert anchor == s.anchor_text and before + anchor + after == s.sentence
        main_text = rows(report_db, "SELECT main_text FROM page_summaries WHERE crawl_id = ? "
                         "AND url = ?", CRAWL, s.source_url)[0][0]  # fmt: skip
        assert s.sentence in main_text
    for s in report.suggestions:
        if s.placement == "needs_new_sentence":
            assert s.sentence_parts() is None

    best = report_of(report_db, max_suggestions=7)
    assert best.suggestions == report.suggestions[:7] and best.suggestions_total == len(expected)


def test_inlinks_before_and_after_and_the_what_if_summary(report_db: Path):
    report = report_of(report_db)
    metrics = dict(rows(report_db, """SELECT url, unique_content_inlinks FROM page_link_metrics
        WHERE crawl_id = ? AND indexable""", CRAWL))  # fmt: skip
    suggested = dict(rows(report_db, "SELECT target_url, count(*) FROM v_opportunities GROUP BY 1"))
    frame = report.inlinks
    assert frame["url"].to_list() == sorted(metrics) and report.indexable_pages == len(metrics)
    for url, before, added, after in frame.select("url", "before", "added", "after").iter_rows():
        assert before == metrics[url] and added == suggested.get(url, 0) and after == before + added
    assert sum(frame["added"]) == report.suggestions_total
    assert [label for label, _, _ in report.inlink_buckets] == ["0", "1", "2", "3-5", "6-10", "11+"]
    assert sum(b for _, b, _ in report.inlink_buckets) == len(metrics)
    assert sum(a for _, _, a in report.inlink_buckets) == len(metrics)
    zero_before = sum(1 for v in metrics.values() if v == 0)
    assert report.inlink_buckets[0][1] == zero_before

    whatif = report.whatif
    orphans = rows(report_db, "SELECT count(*) FROM v_orphan_pages WHERE indexable")[0][0]
    assert whatif is not None and whatif.links == report.suggestions_total
    assert whatif.orphans_before == orphans >= 1  # the demo's orphan guide
    assert whatif.orphans_after == 0 and whatif.orphans_fixed == orphans
    assert whatif.gini_after < whatif.gini_before


def test_orphans_deep_pages_and_clusters_are_the_crawls(report_db: Path):
    report = report_of(report_db)
    orphans = rows(
        report_db,
        """SELECT url, title, indexable, excluded_reason, excluded_detail,
        in_sitemap, content_inlinks, nav_inlinks FROM v_orphan_pages""",
    )
    assert list(report.orphans.rows) == orphans and report.orphans.total == len(orphans) >= 3
    assert report.orphans.columns[:3] == ("url", "title", "indexable")

    deep = rows(
        report_db,
        """SELECT url, click_depth FROM v_page_metrics WHERE indexable
        AND is_deep ORDER BY click_depth DESC NULLS FIRST, url""",
    )
    assert [(r[0], r[2]) for r in report.deep_pages.rows] == deep and deep
    assert report.deep_pages.columns == (
        "url", "title", "click_depth", "content_inlinks", "suggested_inlinks"
    )  # fmt: skip

    clusters = rows(report_db, "SELECT url, cluster_id, cluster_label FROM topic_clusters "
                    "WHERE crawl_id = ? ORDER BY cluster_id, url", CRAWL)  # fmt: skip
    cmap = report.clusters
    assert cmap is not None and cmap.total == len(clusters) == cmap.points.height
    assert list(cmap.points.select("url", "cluster_id", "cluster_label").iter_rows()) == clusters
    assert np.isfinite(cmap.points["x"].to_numpy()).all()
    assert 0 < cmap.explained[1] <= cmap.explained[0] < 1


def test_projection_keeps_the_direction_of_most_variance():
    rng = np.random.default_rng(0)
    t = rng.normal(size=200)
    matrix = np.stack([3 * t, 3 * t, 0.1 * rng.normal(size=200)], axis=1).astype(np.float32)
    coords, (first, second) = project_2d(matrix)
    assert coords.shape == (200, 2) and first > 0.99 and second < 0.01
    assert abs(np.corrcoef(coords[:, 0], t)[0, 1]) > 0.999
    assert project_2d(np.zeros((1, 4), dtype=np.float32))[1] == (0.0, 0.0)


def test_one_crawl_has_no_diff_and_two_crawls_show_what_changed(report_db, two_crawl_db):
    assert report_of(report_db).diff is None
    html = render_html(report_of(report_db))
    assert f"No crawl diff: crawl {CRAWL} is the first complete crawl of" in html

    db, earlier = two_crawl_db
    diff = report_of(db).diff
    assert diff is not None and (diff.old_crawl_id, diff.new_crawl_id) == (EARLIER, CRAWL)
    counts = {(kind, change): n for kind, change, n in diff.counts}
    open_now = rows(db, "SELECT count(*) FROM link_opportunities WHERE crawl_id = ?", CRAWL)[0][0]
    assert counts == {
        ("suggestions", "implemented"): 1,
        ("suggestions", "new"): 1,
        ("suggestions", "disappeared"): 1,
        ("suggestions", "still_open"): open_now - 1,
        ("links", "added"): 1,
    }
    table = diff.suggestions
    at = table.columns.index
    got = [(r[at("status")], (r[at("source_url")], r[at("target_url")])) for r in table.rows]
    assert got == [
        ("implemented", earlier.implemented),
        ("new", earlier.new),
        ("disappeared", earlier.disappeared),
    ]
    assert table.rows[0][at("why")].startswith('linked in content with anchor "')
    expected_links = rows(
        db,
        """SELECT change, position, source_url, target_url FROM
        v_link_changes""",
    )
    assert [r[:4] for r in diff.links.rows] == expected_links
    assert expected_links == [("added", "content", *earlier.implemented)]
    assert report_of(db, EARLIER).diff is None  # c0 is the site's first crawl


def test_crawled_text_is_escaped_in_the_page(report_db: Path, tmp_path: Path):
    db = tmp_path / "odd.duckdb"
    shutil.copy(report_db, db)
    source = rows(db, "SELECT source_url FROM v_opportunities ORDER BY score DESC LIMIT 1")[0][0]
    evil = '<script>alert("x")</script> & <b>co</b>'
    con = duckdb.connect(str(db))
    con.execute("UPDATE indexable_pages SET title = ? WHERE url = ?", [evil, source])
    con.close()
    html = render_html(report_of(db))
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &lt;b&gt;co&lt;/b&gt;" in html
    assert evil not in html and "<script>alert" not in html
    assert html.count("<script") == len(re.findall(r"</script>", html))


def test_cli_writes_a_folder_that_opens_without_a_server(capsys, report_db: Path, tmp_path):
    before = hashlib.sha1(report_db.read_bytes()).hexdigest()
    out = tmp_path / "nested" / "report"
    assert main(["report", "--db", str(report_db), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    total = rows(report_db, "SELECT count(*) FROM v_opportunities")[0][0]
    assert printed == (
        f"wrote the report of crawl {CRAWL} ({total:,} suggestions, "
        f"{report_of(report_db).orphans.total} orphan pages, no earlier crawl) "
        f"to {out / 'index.html'}\n"
    )
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "plotly.min.js"]
    assert not list(out.parent.glob(".*partial"))
    html = (out / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script[^>]*\bsrc=\"([^\"]+)\"", html)
    assert scripts == ["plotly.min.js"]  # once, beside the page: no CDN
    assert "cdn.plot.ly" not in html and (out / "plotly.min.js").stat().st_size > 1_000_000
    assert html.count('class="suggestion"') == 2 * total  # grouped by source and by target
    assert hashlib.sha1(report_db.read_bytes()).hexdigest() == before  # only read

    assert main(["report", "--db", str(report_db), "--out", str(out), "--max-suggestions",
                 "3"]) == 0  # fmt: skip
    assert "(3 of " in capsys.readouterr().out
    html = (out / "index.html").read_text(encoding="utf-8")
    assert html.count('class="suggestion"') == 6


@pytest.mark.parametrize(
    ("db_name", "extra", "message"),
    [
        ("missing.duckdb", [], "database not found: "),
        (
            None,
            ["--crawl", "nope"],
            f"unknown crawl: nope (complete crawls, newest first: {CRAWL})",
        ),
        (None, ["--out-is-a-file"], "is a file: give a folder for the report"),
    ],
)
def test_cli_errors_are_one_line_and_create_nothing(
    capsys, report_db: Path, tmp_path: Path, db_name, extra, message
):
    db = tmp_path / db_name if db_name else report_db
    out = tmp_path / "report"
    if extra == ["--out-is-a-file"]:
        out.write_text("mine", encoding="utf-8")
        extra = []
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["report", "--db", str(db), "--out", str(out), *extra]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("linkpipe: error: ") and message in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not (tmp_path / "missing.duckdb").exists()


def test_an_unfinished_crawl_is_refused(report_db: Path, tmp_path: Path):
    db = tmp_path / "running.duckdb"
    shutil.copy(report_db, db)
    con = duckdb.connect(str(db))
    con.execute("UPDATE crawl_runs SET status = 'running' WHERE crawl_id = ?", [CRAWL])
    con.close()
    with pytest.raises(ReportError, match="no complete crawl in the database"):
        report_of(db)
    with pytest.raises(ReportError, match=f"crawl {CRAWL} is not complete \\(status running\\)"):
        report_of(db, CRAWL)
    assert not list(tmp_path.glob("report*"))
    with pytest.raises(ReportError, match="is a file"):
        write_report(report_of(report_db), db)


def test_a_crawl_without_suggestions_or_clusters_says_so(report_db: Path, tmp_path: Path):
    db = tmp_path / "bare.duckdb"
    shutil.copy(report_db, db)
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM link_opportunities")
    con.execute("DELETE FROM topic_clusters")
    con.close()
    report = report_of(db)
    assert report.suggestions == [] and report.suggestions_total == 0
    assert report.whatif is None and report.clusters is None
    assert sum(report.inlinks["added"]) == 0 and report.orphans.total >= 3
    html = render_html(report)
    assert f"Crawl {CRAWL} has no suggestions." in html
    assert f"Crawl {CRAWL} has no topic clusters." in html
    assert 'id="chart-inlinks"' in html and 'id="chart-scores"' not in html
    assert 'class="suggestion"' not in html and 'id="filters"' not in html
