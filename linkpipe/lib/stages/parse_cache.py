"""Dependency parses kept between crawls in ``parse_cache``, by sentence hash and parser.

Anchor placement judges sentences with spaCy (:mod:`linkpipe.lib.text.phrases`), and a
refresh places again every pair whose anchor key changed: a source linking to an edited page
is placed again, though its own sentences did not change. With the parses its earlier
placements made stored, such a source parses nothing (a parse is a function of the sentence
and :func:`~linkpipe.lib.text.phrases.parser_identity`; the same in a batch or alone), and a
shard all of whose judged sentences are stored never imports spaCy. The database is held only
to read a batch's parses and to store the new ones, never while placing."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from linkpipe.lib.hashing import text_hash
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.storage import execute_with_frame, fetch_frame, open_db, transaction
from linkpipe.lib.text.parse_codec import decode_parse, encode_parse
from linkpipe.lib.text.phrases import PhraseJudge


@dataclass
class ParseCache:
    """Stored parses of one database, read before a batch of sources is placed and written
    after it (counts for the stage's metadata)."""

    db_path: str | Path
    loaded: int = 0
    stored: int = 0

    def load(
        self,
        sources: Iterable[SourceText],
        only: Callable[[SourceText], Iterable[int]] | None = None,
    ) -> None:
        """Put the stored parses of the sources' linkable sentences (``only``: those of the
        numbers it gives, see :attr:`SourceText.ranges`) into their judges (each judge then
        records what it parses, for :meth:`store`; a parse the judge already held in memory
        but the database lacks is recorded too). A sentence left out and judged after all is
        parsed: the same parse, at a parser's cost."""
        for judge, sentences in _sentences_by_judge(sources, only).items():
            judge.recording = True
            wanted = {text_hash(s): s for s in sentences}
            with open_db(self.db_path) as con:
                found = fetch_frame(
                    con, "read/select_cached_parses", [judge.identity, sorted(wanted)]
                )
            stored = set()
            for key, data in found.iter_rows():
                if wanted[key] in judge.cache:
                    stored.add(key)
                    continue
                try:
                    judge.remember(wanted[key], decode_parse(data))
                except ValueError:  # a damaged row: parsed again, and stored over it
                    continue
                stored.add(key)
                self.loaded += 1
            judge.fresh += [
                (s, judge.cache[s]) for k, s in wanted.items() if k not in stored and s in judge.cache
            ]

    def store(self, sources: Iterable[SourceText]) -> None:
        """Store what the sources' judges parsed since :meth:`load` (a damaged row is stored
        over); the judges stop recording until the next :meth:`load`."""
        for judge in _judges(sources):
            judge.recording = False  # what other code parses later is not held for nothing
            fresh = list(dict(judge.take_fresh()).items())  # a sentence parsed twice: once
            if not fresh:
                continue
            frame = pl.DataFrame(
                {
                    "sentence_hash": [text_hash(s) for s, _ in fresh],
                    "parser_id": judge.identity,
                    "parse": [encode_parse(p) for _, p in fresh],
                },
                schema={"sentence_hash": pl.String, "parser_id": pl.String, "parse": pl.Binary},
            )
            with open_db(self.db_path) as con, transaction(con):
                execute_with_frame(con, "write/insert_parse_cache", "_linkpipe_new_parses", frame)
            self.stored += len(fresh)


def _judges(sources: Iterable[SourceText]) -> list[PhraseJudge]:
    """The distinct judges with a parser of ``sources``."""
    return list(dict.fromkeys(s.judge for s in sources if s.judge is not None and s.judge.parsed))


def _sentences_by_judge(
    sources: Iterable[SourceText], only: Callable[[SourceText], Iterable[int]] | None = None
) -> dict[PhraseJudge, list[str]]:
    """The linkable sentences of ``sources`` (``only``: those of the numbers it gives), per
    judge with a parser."""
    out: dict[PhraseJudge, list[str]] = {}
    for src in sources:
        if src.judge is not None and src.judge.parsed:
            ranges = src.ranges if only is None else [src.ranges[n] for n in sorted(only(src))]
            out.setdefault(src.judge, []).extend(src.text[s:e] for _, s, e, _, _ in ranges)
    return out
