"""The anchor ledger: which placement each kept pair gets, so that anchors vary and never
collide on a page.

A source's kept pairs are placed together, best first (:meth:`AnchorLedger.place_source`):
each takes its first placement that is free; a pair whose every placement is taken asks one
earlier pair of the page that holds what it needs to move to another of its own placements.
Before, the pairs of a source were placed one at a time in the site's score order and never
moved: a pair with one placement lost it to a better pair that had others (see
docs/benchmarks.md for what that cost).

A pair's placements may be a :class:`Prefix`: the first of its placements, placed lazily
(most pairs take their first free placement, and each further one costs the parse of more
sentences). A pair whose prefix the ledger looks past is listed in :attr:`AnchorLedger.short`;
the caller then undoes the batch (:meth:`AnchorLedger.rollback`), places those pairs fully
and runs the batch again, so the anchors are those of full lists."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from linkpipe.lib.links.anchors import WINDOW_KINDS, AnchorChoice

Placements = Sequence[AnchorChoice]


class Prefix(tuple[AnchorChoice, ...]):
    """The first placements of a pair, best first, when it has more beyond them (a plain
    tuple: every placement it has)."""

    __slots__ = ()


def complete(choices: Placements) -> bool:
    """Whether ``choices`` are every placement of their pair (not a :class:`Prefix`)."""
    return not isinstance(choices, Prefix)


def clash(a: AnchorChoice, b: AnchorChoice) -> bool:
    """Whether two placements on one page cannot both link: the same text (one text links one
    target a page) or overlapping spans."""
    return a.anchor_text.lower() == b.anchor_text.lower() or (a.start < b.end and b.start < a.end)


class AnchorLedger:
    """The anchors placed so far on a site, so that anchors vary and never collide: one anchor
    text links one target per source, a target gets the same phrase found for it (a window,
    see :data:`~linkpipe.lib.links.anchors.WINDOW_KINDS`) a limited number of times, and
    anchors on one source never overlap. A name of the target (title, H1, an anchor the site
    uses for it) is not limited: it is how the site names the page, and giving way to a
    weaker phrase of the source would put the link on words that do not describe the
    target."""

    def __init__(self, max_same_anchor_per_target: int) -> None:
        self.max_same_anchor_per_target = max_same_anchor_per_target
        # source -> anchor text (lower case) -> the target it links to
        self.used_anchor: dict[str, dict[str, str]] = defaultdict(dict)
        # (target, anchor text) -> times used
        self.anchor_uses: dict[tuple[str, str], int] = defaultdict(int)
        # source -> spans of the anchors placed in its main text
        self.used_spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
        # (source, target) of the pairs whose Prefix was looked past since the last commit
        self.short: list[tuple[str, str]] = []
        self._journal: list[tuple[str, str, int]] = []  # anchor_uses changes since the commit

    def commit(self) -> None:
        """Keep every placement made since the last commit (or rollback)."""
        self._journal.clear()
        self.short.clear()

    def rollback(self) -> None:
        """Undo every placement made since the last commit: the sources are placed again."""
        for target, key, delta in reversed(self._journal):
            self.anchor_uses[(target, key)] -= delta
        self.commit()

    def pick(self, source: str, target: str, choices: Placements) -> AnchorChoice | None:
        """The first of ``choices`` not used for another target on the source, not a window
        overused for this target, and not overlapping an anchor already placed on the source;
        None if none. The choice returned counts as placed."""
        choice = next((c for c in choices if self._free(source, target, c)), None)
        if choice is not None:
            self._take(source, target, choice)
        elif not complete(choices):
            self.short.append((source, target))
        return choice

    def place_source(
        self, source: str, pairs: Sequence[tuple[str, Placements]]
    ) -> list[AnchorChoice | None]:
        """The placement of each of a source's kept pairs ``(target, placements)``, best pair
        first: its first free placement, else one an earlier pair gives up by moving to
        another of its own (:meth:`_make_room`); None where none is left. A source's pairs
        are all placed in one call: its page's bookkeeping is dropped after it."""
        placed: dict[int, AnchorChoice] = {}
        for n, (target, choices) in enumerate(pairs):
            choice = self.pick(source, target, choices)
            if choice is None:
                choice = self._make_room(source, target, choices, pairs, placed)
            if choice is not None:
                placed[n] = choice
        self.used_anchor.pop(source, None)
        self.used_spans.pop(source, None)
        return [placed.get(n) for n in range(len(pairs))]

    def _make_room(
        self,
        source: str,
        target: str,
        choices: Placements,
        pairs: Sequence[tuple[str, Placements]],
        placed: dict[int, AnchorChoice],
    ) -> AnchorChoice | None:
        """The first of ``choices`` that one earlier pair of the source holds (its text or
        its place) and can leave for another of its own placements that is free and does not
        clash with it; that pair moves. None when no choice can be freed so."""
        for choice in choices:
            if self._overused(target, choice):
                continue
            holders = [n for n, held in placed.items() if clash(held, choice)]
            if len(holders) != 1 or placed[holders[0]].source_kind not in WINDOW_KINDS:
                continue  # a name of its target stays where it is: it is the best anchor
            (n,) = holders
            other, held = pairs[n][0], placed[n]
            self._release(source, other, held)
            moved = next(
                (
                    c
                    for c in pairs[n][1]
                    if c != held and not clash(c, choice) and self._free(source, other, c)
                ),
                None,
            )
            if moved is None and not complete(pairs[n][1]):
                self.short.append((source, other))
            if moved is not None and self._free(source, target, choice):
                self._take(source, other, moved)
                placed[n] = moved
                self._take(source, target, choice)
                return choice
            self._take(source, other, held)
        return None

    def _overused(self, target: str, choice: AnchorChoice) -> bool:
        """Whether ``choice`` is a window already used its limit of times for ``target``."""
        uses = self.anchor_uses[(target, choice.anchor_text.lower())]
        return choice.source_kind in WINDOW_KINDS and uses >= self.max_same_anchor_per_target

    def _free(self, source: str, target: str, choice: AnchorChoice) -> bool:
        """Whether ``choice`` can link ``target`` on ``source`` now."""
        if self.used_anchor[source].get(choice.anchor_text.lower(), target) != target:
            return False
        if self._overused(target, choice):
            return False
        return not any(choice.start < e and s < choice.end for s, e in self.used_spans[source])

    def _take(self, source: str, target: str, choice: AnchorChoice) -> None:
        """Count ``choice`` as placed for ``target`` on ``source``."""
        key = choice.anchor_text.lower()
        self.used_anchor[source][key] = target
        self.anchor_uses[(target, key)] += 1
        self._journal.append((target, key, 1))
        self.used_spans[source].append((choice.start, choice.end))

    def _release(self, source: str, target: str, choice: AnchorChoice) -> None:
        """Undo :meth:`_take` of ``choice`` (a pair's only placement on the source)."""
        key = choice.anchor_text.lower()
        del self.used_anchor[source][key]
        self.anchor_uses[(target, key)] -= 1
        self._journal.append((target, key, -1))
        self.used_spans[source].remove((choice.start, choice.end))
