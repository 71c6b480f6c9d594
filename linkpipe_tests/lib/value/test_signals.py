"""Business value from Search Console, analytics, backlinks and priority CSVs."""

import math

import pytest

from linkpipe.lib.importers import ImportFormatError
from linkpipe.lib.value.signals import business_values, match_urls, read_signals_csv

GSC = (
    "\ufeffTop pages,Clicks,Impressions,CTR,Position\n"
    "https://www.site.test/guides/a/,1000,20000,5%,3.2\n"
    "https://www.site.test/blog/b/,10,900,1.1%,12.5\n"
    "https://www.site.test/nowhere/,5,50,10%,40\n"
)


def test_gsc_rows_match_by_path_and_value_striking_distance(tmp_path):
    path = tmp_path / "gsc.csv"
    path.write_text(GSC, encoding="utf-8")
    rows = read_signals_csv(path, "gsc")
    assert [(r.url, r.clicks, r.position) for r in rows][:2] == [
        ("https://www.site.test/guides/a/", 1000.0, 3.2),
        ("https://www.site.test/blog/b/", 10.0, 12.5),
    ]
    crawl = ["http://127.0.0.1:8000/guides/a/", "http://127.0.0.1:8000/blog/b/"]
    matched = match_urls(rows, crawl)
    assert sorted(matched) == sorted(crawl)  # matched by path across hosts; /nowhere/ dropped
    values = business_values(matched)
    a, b = values[crawl[0]], values[crawl[1]]
    assert a.value == pytest.approx(0.25 * 1.0)
    assert a.notes == ["high search traffic"]
    traffic_b = max(math.log1p(10) / math.log1p(1000), 0.5 * math.log1p(900) / math.log1p(20000))
    assert b.value == pytest.approx(0.25 * traffic_b + 0.25)
    assert b.notes == ["in striking distance (position 12.5)"]


def test_priority_list_and_conversions(tmp_path):
    pri = tmp_path / "priority.csv"
    pri.write_text("url\nhttp://s.test/services/audit/\n")
    conv = tmp_path / "ga.csv"
    conv.write_text("Landing page,Sessions,Key events\nhttp://s.test/services/audit/,300,12\n")
    rows = read_signals_csv(pri, "priority") + read_signals_csv(conv, "analytics")
    assert rows[0].priority == 1.0 and rows[1].conversions == 12.0
    merged = rows[0]
    merged.conversions = rows[1].conversions
    values = business_values(match_urls([merged], ["http://s.test/services/audit/"]))
    v = values["http://s.test/services/audit/"]
    assert v.value == pytest.approx(0.2 + 0.3)
    assert v.notes == ["12 conversions", "a priority page"]


def test_bad_signal_file(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("Page,Clicks\nhttp://s.test/a/,lots\n")
    with pytest.raises(
        ImportFormatError, match="bad.csv line 2, column \"Clicks\": expected a number, got 'lots'"
    ):
        read_signals_csv(path, "gsc")
    path.write_text("Something,Clicks\nx,1\n")
    with pytest.raises(ImportFormatError, match="missing a URL column"):
        read_signals_csv(path, "gsc")
