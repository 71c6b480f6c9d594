"""Pages' sentences stored once by text key: crawls that keep a page's extraction share its
rows, which the ``page_sentences`` view reads by crawl and URL; pruning deletes the keys no
kept crawl names; the published copy holds the keys its crawls name; a file of earlier code
moves its rows over and keeps every crawl's sentences; in-text links the same way."""

from __future__ import annotations

from pathlib import Path

from linkpipe.lib.hashing import text_hash
from linkpipe.lib.retention import prune_crawls, publish_copy
from linkpipe.lib.run_status import finish_run
from linkpipe.lib.stages.page_summaries import text_key
from linkpipe.lib.storage import connect, execute, open_db, write_partition

SENTENCE_COLUMNS = "paragraph_idx, sentence_idx, block_kind, start_offset, end_offset, sentence"
VIEW = f"SELECT crawl_id, shard, url, {SENTENCE_COLUMNS} FROM page_sentences ORDER BY ALL"


def _rows(url: str, text: str) -> tuple[dict[str, object], list[dict[str, object]]]:
    """A page_summaries row of ``url`` and its sentences (one a word of ``text``), as
    page_summaries writes them."""
    key = text_key(url, text_hash(text), True, "x")
    sentences = [
        {"text_key": key, "paragraph_idx": 0, "sentence_idx": i, "block_kind": "paragraph",
         "start_offset": i, "end_offset": i + 1, "sentence": w}
        for i, w in enumerate(text.split())
    ]  # fmt: skip
    return {
        "url": url,
        "content_hash": text_hash(text),
        "main_text": text,
        "text_key": key,
    }, sentences


def _crawls(db: Path, texts: dict[str, dict[str, str]]) -> None:
    """Complete crawls of one site, in order, each with its pages' texts (one shard)."""
    for crawl_id, pages in texts.items():
        rows = [_rows(url, text) for url, text in pages.items()]
        tables = {
            "page_summaries": [summary for summary, _ in rows],
            "text_sentences": [s for _, sentences in rows for s in sentences],
        }
        with open_db(db) as con:
            execute(con, "write/upsert_crawl", [crawl_id, "http://s.test/", "crawler", "", "{}"])
            finish_run(con, crawl_id, "complete")
            write_partition(con, crawl_id, tables, shard=0)


def _count(db: Path, sql: str) -> int:
    with open_db(db) as con:
        return int(con.execute(sql).fetchone()[0])


def test_a_kept_extraction_is_stored_once_and_read_by_every_crawl(tmp_path):
    db = tmp_path / "s.duckdb"
    _crawls(db, {"c1": {"/a": "one two", "/b": "three"}, "c2": {"/a": "one two", "/b": "four"}})
    assert _count(db, "SELECT count(*) FROM text_sentences") == 4  # /a once, /b twice
    with open_db(db) as con:
        rows = con.execute(VIEW).fetchall()
    assert rows == [
        ("c1", 0, "/a", 0, 0, "paragraph", 0, 1, "one"),
        ("c1", 0, "/a", 0, 1, "paragraph", 1, 2, "two"),
        ("c1", 0, "/b", 0, 0, "paragraph", 0, 1, "three"),
        ("c2", 0, "/a", 0, 0, "paragraph", 0, 1, "one"),
        ("c2", 0, "/a", 0, 1, "paragraph", 1, 2, "two"),
        ("c2", 0, "/b", 0, 0, "paragraph", 0, 1, "four"),
    ]


def test_pruning_deletes_the_sentences_no_kept_crawl_names(tmp_path):
    db = tmp_path / "s.duckdb"
    pages = {"c1": {"/a": "one two", "/b": "three"}, "c2": {"/a": "one two", "/b": "four"}}
    _crawls(db, pages | {"c3": {"/a": "one two", "/b": "five"}})
    with open_db(db) as con:
        assert prune_crawls(con, 2) == ["c1"]
        kept = con.execute("SELECT sentence FROM text_sentences ORDER BY ALL").fetchall()
        assert kept == [("five",), ("four",), ("one",), ("two",)]  # "three" was c1's alone
        assert {r[0] for r in con.execute(VIEW).fetchall()} == {"c2", "c3"}


def test_the_published_copy_holds_the_sentences_of_its_crawls_built_or_updated(tmp_path):
    db = tmp_path / "s.duckdb"
    _crawls(db, {"c1": {"/a": "one two", "/b": "three"}, "c2": {"/a": "one two", "/b": "four"}})
    copy = publish_copy(db, keep_crawls=1)
    published = connect(copy, read_only=True)
    assert [r[0] for r in published.execute(VIEW).fetchall()] == ["c2"] * 3
    assert published.execute("SELECT count(*) FROM text_sentences").fetchone() == (3,)
    published.close()
    _crawls(db, {"c3": {"/a": "one two", "/b": "five six"}})
    assert publish_copy(db, keep_crawls=1, refreshed="c3") == copy  # updated in place
    published = connect(copy, read_only=True)
    with open_db(db) as con:
        expected = [r for r in con.execute(VIEW).fetchall() if r[0] == "c3"]
    assert published.execute(VIEW).fetchall() == expected
    sentences = published.execute("SELECT sentence FROM text_sentences ORDER BY ALL").fetchall()
    assert sentences == [("five",), ("one",), ("six",), ("two",)]  # c2's "four" went
    published.close()


def test_a_file_of_earlier_code_moves_every_crawls_sentences_and_links_over(tmp_path):
    db = tmp_path / "old.duckdb"
    _crawls(db, {"c1": {"/a": "one two"}, "c2": {"/a": "one two", "/b": "three"}})
    links = "SELECT crawl_id, shard, url, target_url, start_offset FROM page_text_links"
    with open_db(db) as con:
        key = con.execute("SELECT text_key FROM page_summaries WHERE url = '/a' LIMIT 1")
        link = {"text_key": key.fetchone()[0], "target_url": "/b", "start_offset": 4}
        write_partition(con, "c2", {"text_links": [link]})  # as page_summaries adds it
        before = con.execute(VIEW).fetchall(), con.execute(links + " ORDER BY ALL").fetchall()
        assert before[1] == [("c1", 0, "/a", "/b", 4), ("c2", 0, "/a", "/b", 4)]
        # as earlier code kept them: tables of rows by crawl, shard and page, no text keys
        con.execute(f"CREATE TABLE old_s AS SELECT * EXCLUDE (sentence_idx) FROM ({VIEW})")
        con.execute("ALTER TABLE old_s ADD COLUMN sentence_idx INTEGER DEFAULT 0")
        con.execute(f"CREATE TABLE old_l AS {links}")
        con.execute("ALTER TABLE old_l ADD COLUMN anchor_text VARCHAR")
        con.execute("ALTER TABLE old_l ADD COLUMN end_offset INTEGER")
        for view, table in (("page_sentences", "old_s"), ("page_text_links", "old_l")):
            con.execute(f"DROP VIEW {view}")
            con.execute(f"ALTER TABLE {table} RENAME TO {view}")
        con.execute("DROP TABLE text_sentences")
        con.execute("DROP TABLE text_links")
        con.execute("ALTER TABLE page_summaries DROP COLUMN text_key")
        con.execute("UPDATE linkpipe_schema SET sql_hash = 'older code'")
    with open_db(db) as con:
        assert con.execute(links + " ORDER BY ALL").fetchall() == before[1]
        assert [r[:4] + r[5:] for r in con.execute(VIEW).fetchall()] == [
            r[:4] + r[5:] for r in before[0]
        ]  # every sentence of every crawl (their index was not kept in this copy)
        keys = con.execute("SELECT crawl_id, url, text_key FROM page_summaries ORDER BY ALL")
        by_page = {(c, u): k for c, u, k in keys.fetchall()}
        assert len(set(by_page.values())) == 3 and None not in by_page.values()  # a crawl's own
        assert con.execute("SELECT count(*) FROM text_sentences").fetchone() == (5,)
        assert con.execute("SELECT count(*) FROM text_links").fetchone() == (2,)
        kinds = con.execute(
            "SELECT table_name, table_type FROM information_schema.tables "
            "WHERE table_name IN ('page_sentences', 'page_text_links') ORDER BY ALL"
        )
        assert kinds.fetchall() == [("page_sentences", "VIEW"), ("page_text_links", "VIEW")]


def test_in_text_links_are_stored_once_by_key_and_pruned_with_their_last_crawl(tmp_path):
    db = tmp_path / "s.duckdb"
    _crawls(db, {"c1": {"/a": "one two", "/b": "x"}, "c2": {"/a": "one two"}})
    with open_db(db) as con:
        keys = dict(con.execute("SELECT url, text_key FROM page_summaries").fetchall())
        for crawl_id in ("c1", "c2"):  # as each crawl's page_summaries adds them
            rows = [{"text_key": keys[u], "target_url": "/c", "start_offset": 1} for u in keys]
            write_partition(con, crawl_id, {"text_links": rows})
        assert con.execute("SELECT count(*) FROM text_links").fetchone() == (2,)
        links = "SELECT crawl_id, url, target_url FROM page_text_links ORDER BY ALL"
        assert con.execute(links).fetchall() == [
            ("c1", "/a", "/c"), ("c1", "/b", "/c"), ("c2", "/a", "/c")
        ]  # fmt: skip
        assert prune_crawls(con, 1) == ["c1"]
        assert con.execute("SELECT count(*) FROM text_links").fetchone() == (1,)
        assert con.execute(links).fetchall() == [("c2", "/a", "/c")]
