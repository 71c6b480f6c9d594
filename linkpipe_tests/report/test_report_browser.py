"""The editor's report in a real headless browser: Debian's chromium, driven by Playwright
through ``executable_path`` (Playwright's own browser downloads are not reachable here). The
page is opened from ``file://``: no console errors, charts drawn, every suggestion row linking
its source and target pages as stored, anchors highlighted, and filters that filter.

Without chromium (or Playwright) the tests skip, unless LINKPIPE_REQUIRE_BROWSER=1 (set by CI),
where they fail."""

import os
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from linkpipe.cli.main import main
from linkpipe_tests.report.conftest import CRAWL, EARLIER

pytestmark = pytest.mark.slow
CHARTS = ("chart-scores", "chart-inlinks", "chart-gainers", "chart-clusters")


def find_chromium() -> tuple[str | None, str | None]:
    """(the chromium to drive, None) or (None, what is missing: no chromium, no Playwright)."""
    configured = os.environ.get("LINKPIPE_CHROMIUM")
    candidates = [configured] if configured else [shutil.which("chromium"), "/usr/bin/chromium"]
    found = next((c for c in candidates if c and Path(c).is_file()), None)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return None, "Playwright is not installed (pip install -e '.[test]')"
    if found is None:
        return None, "no chromium (apt-get install chromium, or set LINKPIPE_CHROMIUM)"
    return found, None


CHROMIUM, MISSING = find_chromium()
REQUIRED = os.environ.get("LINKPIPE_REQUIRE_BROWSER") == "1"
if MISSING and not REQUIRED:  # skipped at import, before a fixture builds a database
    pytest.skip(MISSING, allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.fail(f"LINKPIPE_REQUIRE_BROWSER=1 but {MISSING}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def report_page_url(tmp_path_factory, two_crawl_db) -> str:
    db, _ = two_crawl_db
    out = tmp_path_factory.mktemp("report-out") / "report"
    assert main(["report", "--db", str(db), "--out", str(out)]) == 0
    return (out / "index.html").as_uri()


@pytest.fixture()
def page(browser, report_page_url: str):
    """The report opened in a fresh page; the console's errors and uncaught exceptions are
    collected in ``page.problems``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(report_page_url)
    for chart in CHARTS:
        page.wait_for_selector(f"#{chart} svg.main-svg", state="attached", timeout=30_000)
    page.problems = problems
    yield page
    page.close()


def suggestions_in(db: Path) -> list[dict]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        cur = con.execute("""SELECT source_url, target_url, anchor_text, placement, confidence,
            target_type FROM v_opportunities ORDER BY source_url, rank""")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    finally:
        con.close()


ROWS_JS = """(view) => Array.from(document.querySelectorAll(`#by-${view} tr.suggestion`)).map(
  (row) => ({
    source: row.querySelector('a.source-link').getAttribute('href'),
    target: row.querySelector('a.target-link').getAttribute('href'),
    marks: Array.from(row.querySelectorAll('mark')).map((m) => m.textContent),
    visible: row.offsetParent !== null,
    source_data: row.dataset.source,
  }))"""


def visible(page, view: str) -> list[dict]:
    return [row for row in page.evaluate(ROWS_JS, view) if row["visible"]]


def test_opens_without_console_errors_and_draws_every_chart(page, two_crawl_db):
    db, _ = two_crawl_db
    assert page.problems == []
    for chart in CHARTS:
        assert page.locator(f"#{chart} svg.main-svg").count() >= 1, chart
    con = duckdb.connect(str(db), read_only=True)
    (clustered,) = con.execute(
        "SELECT count(*) FROM topic_clusters WHERE crawl_id = ?", [CRAWL]
    ).fetchone()
    con.close()
    assert page.locator("#chart-clusters .scatterlayer path.point").count() == clustered > 20
    assert page.locator("#chart-scores .barlayer path").count() > 5
    assert page.locator("#diff-empty").count() == 0
    statuses = page.locator("#suggestion-changes tbody tr td:first-child").all_inner_texts()
    assert statuses == ["implemented", "new", "disappeared"]
    assert f"compared with the crawl before it, {EARLIER}" in page.inner_text("#diff")


def test_every_row_links_both_pages_and_highlights_its_anchor(page, two_crawl_db):
    db, _ = two_crawl_db
    expected = suggestions_in(db)
    assert len(expected) > 50
    by_pair = {(r["source_url"], r["target_url"]): r for r in expected}
    for view in ("source", "target"):
        shown = page.evaluate(ROWS_JS, view)
        pairs = Counter((r["source"], r["target"]) for r in shown)
        assert pairs == Counter(list(by_pair)) and len(by_pair) == len(expected), view
        for row in shown:
            stored = by_pair[(row["source"], row["target"])]
            if stored["placement"] == "in_sentence":
                assert row["marks"] == [stored["anchor_text"]]
            else:
                assert row["marks"] == []
    assert [(r["source"], r["target"]) for r in page.evaluate(ROWS_JS, "source")] == [
        (r["source_url"], r["target_url"]) for r in expected
    ]  # grouped by source page in URL order, each by rank


def test_filters_change_the_rows_shown(page, two_crawl_db):
    db, _ = two_crawl_db
    expected = suggestions_in(db)
    per_source = Counter(r["source_url"] for r in expected)
    source, count = per_source.most_common(1)[0]
    assert 1 < count < len(expected)
    assert len(visible(page, "source")) == len(expected) == int(page.inner_text("#shown-count"))

    page.select_option("#f-source", source)
    rows = visible(page, "source")
    assert len(rows) == count == int(page.inner_text("#shown-count"))
    assert {r["source"] for r in rows} == {source}
    page.check("#group-target")
    assert visible(page, "source") == []
    assert len(visible(page, "target")) == count
    confident = [r for r in expected if r["source_url"] == source and r["confidence"] >= 0.5]
    page.fill("#f-confidence", "0.5")
    assert len(visible(page, "target")) == len(confident) < count

    page.click("button[type=reset]")
    page.check("#group-source")
    assert len(visible(page, "source")) == len(expected)
    target_type = Counter(r["target_type"] for r in expected).most_common(1)[0][0]
    page.select_option("#f-target-type", target_type)
    typed = sum(1 for r in expected if r["target_type"] == target_type)
    assert len(visible(page, "source")) == typed < len(expected)
    page.select_option("#f-target-type", "")
    page.select_option("#f-placement", "needs_new_sentence")
    unplaced = sum(1 for r in expected if r["placement"] == "needs_new_sentence")
    assert len(visible(page, "source")) == unplaced == int(page.inner_text("#shown-count"))
    assert page.problems == []
