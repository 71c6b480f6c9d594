"""Placements whose well-formedness checks parse sentences in shared batches.

A placement judges its best windows first and stops when it has found enough anchors, so which
sentences it needs parsed is known only while it runs. :func:`place_in_rounds` runs many
placements with their sources deferring parses (:meth:`SourceText.deferred_parses`): a
placement that needs a sentence not parsed yet raises :class:`ParseNeeded` and runs again in
the next round, after the round's sentences were parsed together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from linkpipe.lib.links.anchors import SourceText
    from linkpipe.lib.text.phrases import PhraseJudge

MAX_PARSE_ROUNDS = 64  # rounds of place_in_rounds before the rest parse one at a time
K = TypeVar("K")
T = TypeVar("T")


class ParseNeeded(Exception):
    """A judgement needs the parse of ``sentence``, not made yet (see
    :meth:`SourceText.deferred_parses`)."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def place_in_rounds(jobs: dict[K, tuple[SourceText, Callable[[], T]]]) -> dict[K, T]:
    """The result of every job (a placement in its source text), with the sentences the jobs
    judge parsed in shared batches. In each round every unfinished job runs until it needs a
    sentence not parsed yet (:class:`ParseNeeded`); the round's sentences, of every source, are
    parsed together and the stopped jobs run again from the start (their earlier verdicts are
    cached, so a rerun is cheap). Only the sentences some placement judges are parsed, nearly
    all in batches (a parse costs about half as much in a batch as alone); a parse is the same
    either way, so are the results."""
    done: dict[K, T] = {}
    pending = list(jobs)
    for _ in range(MAX_PARSE_ROUNDS):
        if not pending:
            return done
        needed: dict[int, tuple[PhraseJudge, dict[str, None]]] = {}
        waiting = []
        for key in pending:
            src, job = jobs[key]
            try:
                with src.deferred_parses():
                    done[key] = job()
            except ParseNeeded as need:
                assert src.judge is not None
                needed.setdefault(id(src.judge), (src.judge, {}))[1][need.sentence] = None
                waiting.append(key)
        for judge, sentences in needed.values():
            judge.prepare(sentences)
        pending = waiting
    return done | {key: jobs[key][1]() for key in pending}  # parsed one at a time
