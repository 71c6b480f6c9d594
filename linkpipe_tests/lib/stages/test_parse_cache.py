"""Sentence parses kept in ``parse_cache``: a placement with every judged sentence stored
parses nothing, never loads spaCy and gives the rows of one that parses."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from linkpipe.lib.hashing import DEFAULT_SHARDS, text_hash
from linkpipe.lib.links import anchors, long_sources, placement
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.retention import prune_crawls
from linkpipe.lib.stages import candidate_parses
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.parse_cache import ParseCache
from linkpipe.lib.storage import open_db
from linkpipe.lib.text.parse_codec import decode_parse, encode_parse
from linkpipe.lib.text.parsing import (
    LazyParser,
    current_parser_identity,
    installed_pipeline,
    load_parser,
)
from linkpipe.lib.text.phrases import PhraseJudge
from linkpipe_tests.graph import run_demo_crawls


def _rows(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT * EXCLUDE (crawl_id) FROM candidate_pairs WHERE crawl_id = 'c1' "
            "ORDER BY shard, source_url, target_url"
        ).fetchall()


def _place_all(db: Path, model: str, monkeypatch: pytest.MonkeyPatch) -> tuple[PhraseJudge, int, int]:
    """Every shard placed again from scratch with a new judge (nothing parsed in memory)."""
    name = installed_pipeline()
    assert name is not None, "spaCy and an English pipeline are dependencies of linkpipe"
    judge = PhraseJudge(LazyParser(name))
    monkeypatch.setattr(anchors, "default_judge", lambda: judge)
    loaded = stored = 0
    for shard in range(DEFAULT_SHARDS):
        meta = materialize_candidate_pairs(db, "c1", shard, model, reuse=False).meta
        loaded, stored = loaded + meta["parses_loaded"], stored + meta["parses_stored"]
    return judge, loaded, stored


def test_stored_parses_replace_parsing_and_give_the_same_rows(tmp_path, fake_model, monkeypatch):
    db = tmp_path / "p.duckdb"
    run_demo_crawls(db, ("c1",), fake_model)
    first = _rows(db)
    assert len(first) > 100
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM parse_cache")

    cold, loaded, stored = _place_all(db, fake_model, monkeypatch)
    assert loaded == 0 and cold.parsed_sentences > 0 and stored == cold.parsed_sentences
    assert _rows(db) == first  # the placements of the graph run, parsed again
    with duckdb.connect(str(db), read_only=True) as con:
        ids = con.execute("SELECT DISTINCT parser_id FROM parse_cache").fetchall()
        count = con.execute("SELECT count(*) FROM parse_cache").fetchone()
    assert ids == [(cold.identity,)] and "spacy==" in cold.identity
    assert count == (stored,)

    warm, loaded, stored = _place_all(db, fake_model, monkeypatch)
    assert warm.parsed_sentences == 0 and stored == 0
    # the sentences placement judges are read, and only they: those holding a name of a
    # target whose pair is placed (a source's other sentences are not)
    assert loaded == cold.parsed_sentences
    assert isinstance(warm.parser, LazyParser) and warm.parser._parser is None  # no spaCy load
    assert _rows(db) == first

    with duckdb.connect(str(db)) as con:  # a damaged row: parsed again and stored over
        damaged = con.execute("SELECT sentence_hash FROM parse_cache LIMIT 1").fetchall()[0][0]
        con.execute("UPDATE parse_cache SET parse = '\\x01'::BLOB WHERE sentence_hash = ?", [damaged])
    again, _, stored = _place_all(db, fake_model, monkeypatch)
    assert again.parsed_sentences == 1 and stored == 1
    with duckdb.connect(str(db), read_only=True) as con:
        blob = con.execute(
            "SELECT parse FROM parse_cache WHERE sentence_hash = ?", [damaged]
        ).fetchall()[0][0]
    sentence = next(s for s in again.cache if text_hash(s) == damaged)
    assert decode_parse(blob) == again.cache[sentence]
    assert _rows(db) == first


def test_a_long_source_loads_its_parts_stored_parses_and_parses_nothing_again(
    tmp_path, fake_model, monkeypatch
):
    db = tmp_path / "l.duckdb"
    run_demo_crawls(db, ("c1",), fake_model)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM parse_cache")
    parts: list[int] = []

    def small_parts(src: SourceText):  # the demo's pages placed in parts of about 80 words
        parts.append(src.tokens.__len__())
        return long_sources.iter_parts(src, 80)

    monkeypatch.setattr(long_sources, "PART_WORDS", 80)
    monkeypatch.setattr(placement, "iter_parts", small_parts)
    cold, loaded, stored = _place_all(db, fake_model, monkeypatch)
    in_parts = _rows(db)
    assert len(parts) > 10 and min(parts) > 80  # long sources with pairs to place
    assert loaded == 0 and cold.parsed_sentences > 0 and stored == cold.parsed_sentences

    warm, loaded, stored = _place_all(db, fake_model, monkeypatch)
    # each part's judged sentences are read before it is placed, and the new parses stored
    # after it: a second placement parses nothing and never loads spaCy
    assert warm.parsed_sentences == 0 and stored == 0 and loaded == cold.parsed_sentences
    assert isinstance(warm.parser, LazyParser) and warm.parser._parser is None
    assert _rows(db) == in_parts and len(in_parts) > 100


def test_short_sources_placed_after_a_long_one_in_a_batch_store_their_parses(
    tmp_path, fake_model, monkeypatch
):
    """A long source's parts load and store their parses around their own placing; the judge
    is the batch's, so the short sources placed after them in the same batch must go on
    recording what they parse (before, the part's store stopped it: their parses were made
    again, and spaCy loaded, in every later crawl)."""
    db = tmp_path / "m.duckdb"
    run_demo_crawls(db, ("c1",), fake_model)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM parse_cache")

    def some_long(src: SourceText) -> bool:  # a third of the pages, spread over the batches
        return int(text_hash(src.text)[:8], 16) % 3 == 0

    for module in (placement, candidate_parses):
        monkeypatch.setattr(module, "is_long", some_long)
    monkeypatch.setattr(placement, "iter_parts", lambda src: long_sources.iter_parts(src, 80))
    cold, loaded, stored = _place_all(db, fake_model, monkeypatch)
    mixed = _rows(db)
    assert loaded == 0 and cold.parsed_sentences > 0 and stored == cold.parsed_sentences
    warm, loaded, stored = _place_all(db, fake_model, monkeypatch)
    assert warm.parsed_sentences == 0 and stored == 0 and loaded == cold.parsed_sentences
    assert isinstance(warm.parser, LazyParser) and warm.parser._parser is None  # no spaCy
    assert _rows(db) == mixed


def test_a_parse_survives_its_bytes():
    parser = load_parser()
    assert parser is not None
    sentences = [
        "Brightleaf Content Studio audits 1,200 pages a year.",
        "Call reset() first; then e-mail hello@brightleaf.example.",
        "Go.",
    ]
    for sentence, parse in zip(sentences, parser.parse_many(sentences), strict=True):
        data = encode_parse(parse)
        assert decode_parse(data) == parse, sentence
        assert len(data) == 4 + 20 * len(parse.starts) + len("\x1f".join(parse.pos).encode())
    assert text_hash("Go.") != text_hash("Go!")


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"", "at least 4 bytes"), (b"\x02\x00\x00\x00" + b"\x00" * 8, "cut short")],
)
def test_a_damaged_stored_parse_is_refused(data, message):
    with pytest.raises(ValueError, match=message):
        decode_parse(data)


def test_a_stored_parse_with_missing_parts_of_speech_is_refused():
    parser = load_parser()
    assert parser is not None
    parse = next(parser.parse_many(["Editors link names."]))
    data = encode_parse(parse)
    cut = data[: 4 + 20 * len(parse.starts)] + b"NOUN"
    with pytest.raises(ValueError, match="parts of speech"):
        decode_parse(cut)


def test_pruning_old_crawls_drops_the_parses_of_sentences_no_kept_crawl_has(tmp_path, fake_model):
    db = tmp_path / "k.duckdb"
    run_demo_crawls(db, ("c1", "c2"), fake_model)
    gone = encode_parse(next(load_parser().parse_many(["An edit removed this sentence."])))
    with duckdb.connect(str(db)) as con:
        stored = con.execute("SELECT count(*), any_value(parser_id) FROM parse_cache").fetchone()
        insert = "INSERT INTO parse_cache (sentence_hash, parser_id, parse) VALUES (?, ?, ?)"
        con.execute(insert, [text_hash("An edit removed this sentence."), stored[1], gone])
        kept_sentence = con.execute("SELECT sentence_hash FROM parse_cache LIMIT 1").fetchall()
        con.execute(insert, [kept_sentence[0][0], "an older pipeline", gone])
    assert stored[0] > 100 and stored[1] == current_parser_identity()
    with open_db(db) as con:
        assert prune_crawls(con, 1) == ["c1"]
        kept = con.execute("SELECT count(*) FROM parse_cache").fetchone()
        sentences = {
            text_hash(t[s:e])
            for t, s, e in con.execute(
                """SELECT m.main_text, p.start_offset, p.end_offset FROM page_sentences p
                   JOIN page_summaries m USING (crawl_id, url)"""
            ).fetchall()
        }
        hashes = {r[0] for r in con.execute("SELECT sentence_hash FROM parse_cache").fetchall()}
    # c2 has every sentence c1 had; the removed sentence's parse went, and the older parser's
    assert kept == (stored[0],)
    assert hashes <= sentences and text_hash("An edit removed this sentence.") not in hashes


def test_a_sentence_parsed_twice_is_stored_once(tmp_path):
    db = tmp_path / "s.duckdb"
    with open_db(db):
        pass
    judge = PhraseJudge(load_parser())
    judge.recording = True
    src = SourceText("Editors link names.", [(0, 0, 19, "paragraph")], judge=judge)
    judge.prepare(["Editors link names."])
    judge.forget(["Editors link names."])  # a long page's part forgets its parses
    judge.prepare(["Editors link names."])
    cache = ParseCache(db)
    cache.store([src])
    assert judge.parsed_sentences == 2 and cache.stored == 1
    assert not judge.recording and judge.fresh == []  # nothing held until the next load
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT sentence_hash, parser_id FROM parse_cache").fetchall()
    assert rows == [(text_hash("Editors link names."), judge.identity)]
