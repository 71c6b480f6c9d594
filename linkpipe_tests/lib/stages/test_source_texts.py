"""Source texts read back from a real DuckDB file: texts, sentences and link spans by page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from linkpipe.lib.stages.source_texts import shard_texts, source_texts_of
from linkpipe.lib.storage import open_db

CRAWL = "c1"


def _database(path: Path) -> Path:
    with open_db(path) as con:
        con.executemany(
            "INSERT INTO page_summaries (crawl_id, shard, url, main_text, text_key)"
            " VALUES (?, ?, ?, ?, ?)",
            [
                (CRAWL, 0, "https://s.test/a", "First line. Second one, linked.", "a1"),
                (CRAWL, 0, "https://s.test/b", None, "b1"),
                (CRAWL, 1, "https://s.test/c", "Only text.", "c1"),
                ("c0", 0, "https://s.test/a", "An older crawl's text.", "a0"),
            ],
        )
        con.executemany(
            "INSERT INTO text_sentences (text_key, paragraph_idx, sentence_idx,"
            " block_kind, start_offset, end_offset) VALUES (?, ?, ?, ?, ?, ?)",
            [
                ("a1", 1, 1, "paragraph", 12, 32),
                ("a1", 0, 0, "heading", 0, 11),
                ("a0", 0, 0, "paragraph", 0, 22),
            ],
        )
        con.executemany(
            "INSERT INTO text_links (text_key, target_url, start_offset, end_offset)"
            " VALUES (?, ?, ?, ?)",
            [("a1", "https://s.test/c", 25, 31), ("a1", "https://s.test/b", 12, 18)],
        )
    return path


def test_each_page_gets_its_own_text_sentences_and_link_spans_in_order(tmp_path) -> None:
    db = _database(tmp_path / "texts.duckdb")
    urls = ["https://s.test/a", "https://s.test/b", "https://s.test/c", "https://s.test/gone"]
    with open_db(db) as con:
        texts = source_texts_of(con, CRAWL, urls)
        assert source_texts_of(con, CRAWL, []) == {}
    assert sorted(texts) == urls[:3]  # a page without a summary has no text
    a = texts["https://s.test/a"]
    assert a.text == "First line. Second one, linked."
    assert a.sentences == [(0, 0, 11, "heading"), (1, 12, 32, "paragraph")]  # by offset
    assert a.link_spans == [(12, 18), (25, 31)]
    b = texts["https://s.test/b"]
    assert (b.text, b.sentences, b.link_spans) == ("", [], [])  # no main text: an empty one
    c = texts["https://s.test/c"]
    assert (c.text, c.sentences, c.link_spans) == ("Only text.", [], [])


def test_a_shard_reads_its_own_sources_by_chunks(tmp_path) -> None:
    db = _database(tmp_path / "texts.duckdb")
    shard = shard_texts(db, CRAWL, 0)
    assert shard.lengths == {"https://s.test/a": 31, "https://s.test/b": 0}
    whole = list(shard.chunks())
    assert [sorted(chunk) for chunk in whole] == [["https://s.test/a", "https://s.test/b"]]
    one_by_one = list(replace(shard, chunk=1).chunks())
    assert [list(chunk) for chunk in one_by_one] == [["https://s.test/a"], ["https://s.test/b"]]
    assert one_by_one[0]["https://s.test/a"].link_spans == [(12, 18), (25, 31)]
