"""Parse rounds (lib/links/parse_rounds.py): placements that judge sentences not parsed yet wait
for a shared batch; :func:`drive_together` parses the rounds of several groups in one batch,
holding at most a few groups at a time, with each group's result what it is alone."""

from __future__ import annotations

from collections.abc import Generator

from linkpipe.lib.links.parse_rounds import Needs, drive, drive_together


class RecordingJudge:
    """A judge whose parses are records of the batches asked for (what the scheduler sees of a
    :class:`~linkpipe.lib.text.phrases.PhraseJudge`: ``prepare`` and a cache)."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.cache: set[str] = set()

    def prepare(self, sentences: dict[str, None]) -> None:
        todo = [s for s in sentences if s not in self.cache]
        self.batches.append(todo)
        self.cache.update(todo)


def group(
    name: str, wants: list[int], judge: RecordingJudge, log: list[str]
) -> Generator[Needs, None, list[str]]:
    """A group whose rounds ask for ``wants[r]`` sentences (round r); it checks they were
    parsed before it goes on, and logs when it starts and ends."""
    log.append(f"start {name}")
    seen = []
    for r, count in enumerate(wants):
        sentences = {f"{name}.{r}.{i}": None for i in range(count)}
        yield {id(judge): (judge, sentences)}  # type: ignore[dict-item]
        assert all(s in judge.cache for s in sentences), "resumed before its parse"
        seen += list(sentences)
    log.append(f"end {name}")
    return seen


def test_groups_waiting_together_share_batches_and_only_a_few_are_held() -> None:
    wants = {"a": [40, 6, 1, 1], "b": [30, 3], "c": [50, 2, 1], "d": [], "e": [5]}
    alone_judge, log = RecordingJudge(), []
    alone = {n: drive(group(n, w, alone_judge, log)) for n, w in wants.items()}  # type: ignore[arg-type]
    assert [len(b) for b in alone_judge.batches] == [40, 6, 1, 1, 30, 3, 50, 2, 1, 5]

    judge, log = RecordingJudge(), []
    drive_together((group(n, w, judge, log) for n, w in wants.items()), batch=64, at_once=2)  # type: ignore[arg-type]
    parsed = [s for b in judge.batches for s in b]
    assert sorted(parsed) == sorted(s for seen in alone.values() for s in seen)  # each once
    # a waits with 40 sentences and b joins: 70; their second rounds: 9; b is done, so a's
    # third round waits with c's first: 51; then 1 + 2; c's last with e's (d asks nothing)
    assert [len(b) for b in judge.batches] == [70, 9, 51, 3, 6]
    assert len(judge.batches) < len(alone_judge.batches)
    held, most = 0, 0
    for entry in log:
        held += 1 if entry.startswith("start") else -1
        most = max(most, held)
    assert most <= 2 and log[-1] == "end e" and held == 0  # never more than at_once groups


def test_one_group_at_a_time_is_the_plain_rounds() -> None:
    wants = {"a": [3, 2], "b": [1]}
    judge, log = RecordingJudge(), []
    drive_together((group(n, w, judge, log) for n, w in wants.items()), batch=1, at_once=1)  # type: ignore[arg-type]
    assert [len(b) for b in judge.batches] == [3, 2, 1]
    assert log == ["start a", "end a", "start b", "end b"]
