"""Editors' decisions: CSV parsing with clear errors, upserts, and their effect on scoring."""

from pathlib import Path

import pytest

from linkpipe.lib.importers import ImportFormatError
from linkpipe.lib.run_status import finish_run
from linkpipe.lib.storage import open_db, write_partition
from linkpipe.lib.value.decisions import read_decisions_csv, save_decisions


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "review.csv"
    path.write_text("\ufeff" + text, encoding="utf-8")
    return path


def test_reads_aliases_and_skips_undecided(tmp_path):
    path = write(
        tmp_path,
        "source_url,target_url,rank,decision,who,note\n"
        "http://s.test/a/,http://s.test/b/,1,Accept,ana,good one\n"
        "http://s.test/a/,http://s.test/c/,2,,,\n"
        "http://s.test/d/,http://s.test/b/,1,no,ben,off topic\n",
    )
    got = [
        (d.source_url, d.target_url, d.decision, d.decided_by, d.note)
        for d in read_decisions_csv(path)
    ]
    assert got == [
        ("http://s.test/a/", "http://s.test/b/", "accepted", "ana", "good one"),
        ("http://s.test/d/", "http://s.test/b/", "rejected", "ben", "off topic"),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "source_url,target_url\nhttp://a/,http://b/\n",
            'review.csv line 1, column "decision": missing column',
        ),
        (
            "source_url,target_url,decision\nhttp://a/,http://b/,perhaps\n",
            "review.csv line 2, column \"decision\": expected accepted, rejected or deferred, got 'perhaps'",
        ),
        (
            "source_url,target_url,decision\n/a/,http://b/,accepted\n",
            "review.csv line 2, column \"source_url\": expected an absolute URL, got '/a/'",
        ),
    ],
)
def test_bad_rows_name_line_and_column(tmp_path, text, message):
    with pytest.raises(ImportFormatError) as err:
        read_decisions_csv(write(tmp_path, text))
    assert str(err.value).startswith(message)


def test_decisions_upsert_and_drive_the_opportunity_view(tmp_path):
    db = tmp_path / "d.duckdb"
    with open_db(db) as con:
        con.execute(
            "INSERT INTO crawls (crawl_id, start_url, source) VALUES ('c1', 'http://s.test/', 'crawler')"
        )
        write_partition(
            con,
            "c1",
            {
                "link_opportunities": [
                    {
                        "source_url": "http://s.test/a/",
                        "target_url": "http://s.test/b/",
                        "rank": 1,
                        "score": 0.9,
                    },
                    {
                        "source_url": "http://s.test/a/",
                        "target_url": "http://s.test/c/",
                        "rank": 2,
                        "score": 0.5,
                    },
                ]
            },
        )
        finish_run(con, "c1", "complete")  # only a complete crawl is the views' latest
    path = write(
        tmp_path,
        "source_url,target_url,decision\nhttp://s.test/a/,http://s.test/b/,rejected\n"
        "http://s.test/a/,http://s.test/c/,deferred\n",
    )
    save_decisions(db, read_decisions_csv(path), "c1")
    path.write_text(
        "source_url,target_url,decision,who\nhttp://s.test/a/,http://s.test/c/,accepted,ana\n"
    )
    save_decisions(db, read_decisions_csv(path), "c1")  # a later decision replaces the earlier one
    with open_db(db) as con:
        assert con.execute(
            "SELECT target_url, decision, decided_by FROM v_opportunities"
        ).fetchall() == [("http://s.test/c/", "accepted", "ana")]
        assert con.execute("SELECT count(*) FROM link_decisions").fetchone() == (2,)
        # a refresh rewrites the crawl's opportunities; decisions are untouched
        write_partition(con, "c1", {"link_opportunities": []})
        assert con.execute("SELECT count(*) FROM link_decisions").fetchone() == (2,)
        assert con.execute(
            "SELECT implemented FROM v_decisions WHERE decision='accepted'"
        ).fetchone() == (False,)
