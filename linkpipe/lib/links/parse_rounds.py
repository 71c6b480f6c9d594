"""Placements whose well-formedness checks parse sentences in shared batches.

A placement judges its best windows first and stops when it has found enough anchors, so which
sentences it needs parsed is known only while it runs. :func:`place_in_rounds` runs many
placements with their sources deferring parses (:meth:`SourceText.deferred_parses`): a
placement that needs a sentence not parsed yet raises :class:`ParseNeeded` and runs again in
the next round, after the round's sentences were parsed together. :func:`rounds` is the same
as a generator, so that :func:`drive_together` can parse the rounds of several groups of
placements in one batch (a group's last rounds ask for a few sentences each).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from linkpipe.lib.links.anchors import SourceText
    from linkpipe.lib.text.phrases import PhraseJudge

MAX_PARSE_ROUNDS = 64  # rounds of place_in_rounds before the rest parse one at a time
K = TypeVar("K")
T = TypeVar("T")
Needs = dict[int, "tuple[PhraseJudge, dict[str, None]]"]
"""The sentences a round asks to have parsed, by judge (``id(judge)``: the judge, the sentences
in the order asked for)."""


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
    return drive(rounds(jobs))


def rounds(
    jobs: dict[K, tuple[SourceText, Callable[[], T]]],
) -> Generator[Needs, None, dict[K, T]]:
    """:func:`place_in_rounds` as a generator: it yields each round's sentences, to be parsed
    before it is resumed, and returns the results."""
    done: dict[K, T] = {}
    pending = list(jobs)
    for _ in range(MAX_PARSE_ROUNDS):
        if not pending:
            return done
        needed: Needs = {}
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
        if needed:
            yield needed
        pending = waiting
    return done | {key: jobs[key][1]() for key in pending}  # parsed one at a time


def parse(needs: Needs) -> None:
    """Parse the sentences ``needs`` asks for, one batch per judge."""
    for judge, sentences in needs.values():
        judge.prepare(sentences)


def drive(steps: Generator[Needs, None, T]) -> T:
    """Run a generator of rounds to its end, parsing what each round asks for; its result."""
    try:
        needs = next(steps)
        while True:
            parse(needs)
            needs = steps.send(None)
    except StopIteration as stop:
        result: T = stop.value
        return result


def drive_together(
    groups: Iterable[Generator[Needs, None, object]], batch: int, at_once: int
) -> None:
    """Run generators of rounds (each a group of placements, started in order as the ones
    before wait) with their rounds' sentences parsed together: a batch is parsed once
    ``batch`` sentences wait, or ``at_once`` groups wait, or no group is left to start. A
    group's last rounds ask for a few sentences each; parsed with the next group's first
    rounds they cost what a sentence of a large batch does. Only ``at_once`` groups are held
    at a time (their windows' vectors)."""
    pending = iter(groups)
    waiting: list[tuple[Generator[Needs, None, object], Needs]] = []
    more = True
    while True:
        while more and len(waiting) < at_once and _count(waiting) < batch:
            group = next(pending, None)
            if group is None:
                more = False
            elif (needs := _advance(group)) is not None:
                waiting.append((group, needs))
        if not waiting:
            return
        parse(_merged(needs for _, needs in waiting))
        waiting = [(g, n) for g, _ in waiting if (n := _advance(g)) is not None]


def _advance(group: Generator[Needs, None, object]) -> Needs | None:
    """The group's next round's sentences, None when it is done."""
    try:
        return next(group)
    except StopIteration:
        return None


def _count(waiting: list[tuple[Generator[Needs, None, object], Needs]]) -> int:
    """Sentences the waiting groups ask for."""
    return sum(len(sentences) for _, needs in waiting for _, sentences in needs.values())


def _merged(all_needs: Iterable[Needs]) -> Needs:
    """Several rounds' sentences as one, by judge (each sentence once)."""
    out: Needs = {}
    for needs in all_needs:
        for key, (judge, sentences) in needs.items():
            out.setdefault(key, (judge, {}))[1].update(sentences)
    return out
