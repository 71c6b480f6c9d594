"""Coarse parts of speech from a spaCy pipeline's own attribute rules, without its matcher.

English spaCy pipelines tag fine-grained tags (``NN``, ``VBZ``) and set the coarse part of
speech (``NOUN``, ``VERB``) with an ``attribute_ruler``: about 130 token patterns on the tag,
the lower-case form and the dependency label, later patterns winning. Run as a spaCy
component its matcher walks every pattern over every token: about 30 % of the pipeline's CPU
(6,000 sentences of the generated 1k site: 7.9 CPU-s with it, 5.5 without). The patterns
that set ``POS`` are read from the pipeline and applied here by a dictionary lookup per token,
with the ruler's precedence; the result is the same (tested on every paragraph of the bundled
site against the running component; 18,000 sentences of three sites compared while writing
it). A pipeline whose patterns use anything else (operators,
other attributes) keeps its component: :meth:`PosRules.of` returns None for it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

TokenAttrs = tuple[str, str, str, bool]  # tag, dependency label, lower-case form, is space
FIELDS = {"TAG": 0, "DEP": 1, "LOWER": 2, "IS_SPACE": 3}
MEMO_SIZE = 200_000  # token attribute sets remembered (a site's vocabulary times its tags)


@dataclass(frozen=True, slots=True)
class _Test:
    """One attribute's condition in a token pattern."""

    field: int
    kind: str  # "eq", "IN", "NOT_IN", "REGEX"
    value: Any

    def holds(self, token: TokenAttrs) -> bool:
        found = token[self.field]
        if self.kind == "eq":
            return bool(found == self.value)
        if self.kind == "IN":
            return found in self.value
        if self.kind == "NOT_IN":
            return found not in self.value
        return bool(self.value.search(found))


@dataclass(frozen=True, slots=True)
class PosRule:
    """A pattern that sets ``pos`` on its ``index``-th token; a higher ``order`` wins."""

    order: int
    tokens: tuple[tuple[_Test, ...], ...]
    index: int
    pos: str

    def matches_at(self, tokens: Sequence[TokenAttrs], start: int) -> bool:
        """Whether the pattern matches the tokens from ``start``."""
        if start + len(self.tokens) > len(tokens):
            return False
        return all(
            all(t.holds(tokens[start + k]) for t in tests) for k, tests in enumerate(self.tokens)
        )


def _tests(spec: dict[str, Any]) -> tuple[_Test, ...] | None:
    """The conditions of one token pattern, None when it uses what this module cannot match."""
    tests = []
    for key, value in spec.items():
        if key not in FIELDS:
            return None
        if isinstance(value, dict):
            if len(value) != 1 or next(iter(value)) not in ("IN", "NOT_IN", "REGEX"):
                return None
            kind, arg = next(iter(value.items()))
            arg = re.compile(arg) if kind == "REGEX" else frozenset(arg)
            tests.append(_Test(FIELDS[key], kind, arg))
        elif isinstance(value, (str, bool)):
            tests.append(_Test(FIELDS[key], "eq", value))
        else:
            return None
    return tuple(tests)


class PosRules:
    """The ``POS`` patterns of an attribute ruler, applied to a sentence's tokens."""

    def __init__(self, rules: list[PosRule]) -> None:
        self.single_by_tag: dict[str, list[PosRule]] = defaultdict(list)
        self.single_other: list[PosRule] = []
        self.longer: list[PosRule] = []
        self.memo: dict[Hashable, _Seen] = {}
        self.singles_of_tag: dict[str, list[PosRule]] = {}
        for rule in rules:
            if len(rule.tokens) > 1:
                self.longer.append(rule)
                continue
            tag = [t.value for t in rule.tokens[0] if t.field == 0 and t.kind == "eq"]
            (self.single_by_tag[tag[0]] if tag else self.single_other).append(rule)

    def _singles(self, tag: str) -> list[PosRule]:
        """The single-token rules a token of ``tag`` may match, the highest order first."""
        found = self.singles_of_tag.get(tag)
        if found is None:
            rules = [*self.single_by_tag.get(tag, ()), *self.single_other]
            found = self.singles_of_tag[tag] = sorted(rules, key=lambda r: -r.order)
        return found

    @classmethod
    def of(cls, patterns: Sequence[dict[str, Any]]) -> PosRules | None:
        """The rules of an ``attribute_ruler``'s ``patterns`` (in the order added), None when
        one of them sets ``POS`` in a way this module cannot reproduce."""
        rules = []
        for order, entry in enumerate(patterns):
            pos = entry.get("attrs", {}).get("POS")
            if pos is None:
                continue
            for pattern in entry["patterns"]:
                if not isinstance(pattern, list) or not all(isinstance(t, dict) for t in pattern):
                    return None
                tokens = [_tests(spec) for spec in pattern]
                if not tokens or any(t is None for t in tokens):
                    return None
                tests = tuple(t for t in tokens if t is not None)
                rules.append(PosRule(order, tests, int(entry.get("index", 0)), str(pos)))
        return cls(rules)

    def tag(
        self, keys: Sequence[Hashable], attrs_of: Callable[[Hashable], TokenAttrs]
    ) -> list[str]:
        """The coarse part of speech of each token ("" where no pattern sets one). ``keys``
        identify the tokens' attributes (spaCy's string ids), ``attrs_of`` reads them; what a
        token's attributes decide alone is remembered by key, so a token seen before costs a
        dictionary lookup."""
        seen = [self._seen(key, attrs_of) for key in keys]
        best = [s.best for s in seen]
        for start, first in enumerate(seen):
            for rule in first.starts:  # longer patterns whose first token this one matches
                tokens = [s.attrs for s in seen[start : start + len(rule.tokens)]]
                if rule.matches_at(tokens, 0):
                    at = start + (rule.index % len(rule.tokens))
                    if rule.order > best[at][0]:
                        best[at] = (rule.order, rule.pos)
        return [pos for _, pos in best]

    def _seen(self, key: Hashable, attrs_of: Callable[[Hashable], TokenAttrs]) -> _Seen:
        """What a token's attributes decide alone: the last single-token rule that matches it
        and the longer rules it may start (remembered by key)."""
        found = self.memo.get(key)
        if found is None:
            if len(self.memo) >= MEMO_SIZE:
                self.memo.clear()
            token = attrs_of(key)
            best = (-1, "")
            for rule in self._singles(token[0]):  # the highest order first: the first match wins
                if all(t.holds(token) for t in rule.tokens[0]):
                    best = (rule.order, rule.pos)
                    break
            starts = tuple(r for r in self.longer if all(t.holds(token) for t in r.tokens[0]))
            found = self.memo[key] = _Seen(token, best, starts)
        return found


@dataclass(frozen=True, slots=True)
class _Seen:
    attrs: TokenAttrs
    best: tuple[int, str]  # (order, pos) of the last single-token rule that matches
    starts: tuple[PosRule, ...]  # the longer rules whose first token matches
