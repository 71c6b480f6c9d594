"""Well-formed anchor spans: whether some words of a sentence make a phrase an editor can link.

A span of a sentence is well formed when it

* starts and ends on word boundaries of the sentence's whitespace-separated chunks (an anchor
  never cuts an e-mail address, a URL, a file name or a code span such as ``gimp-image-new``),
* starts and ends on tokens of the dependency parse, neither of them punctuation,
* never cuts a run of proper nouns ("Brightleaf Content Studio") or of numbers, and
* is a noun phrase ending on its head (all its words hang inside it from its last word, a noun:
  "keyword cannibalisation", "the content audit") or exactly one complete constituent (the
  whole subtree of one word).

The parse comes from spaCy's small English pipeline (see :mod:`parsing`, which says what a
parse depends on); sentences are parsed once and cached by their text, and the judge records
what it parses for :mod:`linkpipe.lib.stages.parse_cache` to store.

Fallback, when spaCy or an English pipeline is not installed: the boundary rule above plus
edges on content words and no cut through a run of capitalised words or numbers; the
evaluation then reports the well-formed share as unknown (see :attr:`PhraseJudge.parsed`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from linkpipe.lib import model_cpu
from linkpipe.lib.text.parsing import (
    LazyParser,
    SentenceParse,
    SpacyParser,
    installed_pipeline,
)
from linkpipe.lib.text.stopwords import STOPWORDS

NOUN_POS = frozenset({"NOUN", "PROPN"})
OPENERS = "\"'([{\u201c\u2018"
CLOSERS = "\"')]}.,;:!?\u201d\u2019"
CACHE_SIZE = 50_000  # parsed sentences kept (a few hundred bytes each)
WORD_RE = re.compile(r"\S+")
REPAIR_WORDS = 8  # words a repaired span holds at most
FALLBACK_WORD_RE = re.compile(r"[^\W_][\w'\-]*", re.UNICODE)


def on_word_boundaries(sentence: str, start: int, end: int) -> bool:
    """Whether ``sentence[start:end]`` starts and ends where a whitespace-separated chunk does,
    give or take opening and closing punctuation (so no address, URL or code span is cut)."""
    if not 0 <= start < end <= len(sentence) or sentence[start].isspace():
        return False
    if sentence[end - 1].isspace():
        return False
    before = sentence[:start].rstrip(OPENERS)
    if before and not before[-1].isspace():
        return False
    after = sentence[end:]
    if after.startswith(("'s ", "\u2019s ")) or after in ("'s", "\u2019s"):
        after = after[2:]
    after = after.lstrip(CLOSERS)
    return not after or after[0].isspace()


def _cuts_run(parse: SentenceParse, sentence: str, first: int, last: int) -> bool:
    """Whether tokens ``first..last`` cut a run of proper nouns or of numbers. A sentence's
    first word in title case is no part of a run: the small pipeline tags "Install" in "Install
    GDAL first" as a proper noun."""
    n = len(parse.pos)
    for a, b in ((first - 1, first), (last, last + 1)):
        if a < 0 or b >= n or parse.pos[a] != parse.pos[b] or parse.pos[a] not in ("PROPN", "NUM"):
            continue
        if a == 0 and sentence[parse.starts[0] : parse.ends[0]].istitle():
            continue
        return True
    return False


def span_verdict(parse: SentenceParse, sentence: str, start: int, end: int) -> str:
    """``noun_phrase`` or ``constituent`` for a well-formed span, else why not: ``cuts_word``,
    ``cuts_token``, ``punctuation``, ``cuts_name`` or ``not_a_phrase``."""
    if not on_word_boundaries(sentence, start, end):
        return "cuts_word"
    try:
        first, last = parse.starts.index(start), parse.ends.index(end)
    except ValueError:
        return "cuts_token"
    if last < first:
        return "cuts_token"
    if parse.pos[first] == "PUNCT" or parse.pos[last] == "PUNCT":
        return "punctuation"
    if _cuts_run(parse, sentence, first, last):
        return "cuts_name"
    roots = [i for i in range(first, last + 1) if not first <= parse.heads[i] <= last]
    roots += [i for i in range(first, last + 1) if parse.heads[i] == i]
    if len(roots) != 1:
        return "not_a_phrase"
    root = roots[0]
    if root == last and parse.pos[root] in NOUN_POS:
        return "noun_phrase"
    if parse.left[root] == first and parse.right[root] == last:
        return "constituent"
    return "not_a_phrase"


def fallback_verdict(sentence: str, start: int, end: int) -> str:
    """The rule-based judgement without a parser: boundaries, content words at both edges, no
    cut through a run of capitalised words or numbers."""
    if not on_word_boundaries(sentence, start, end):
        return "cuts_word"
    words = list(FALLBACK_WORD_RE.finditer(sentence))
    inside = [i for i, w in enumerate(words) if start <= w.start() and w.end() <= end]
    if not inside:
        return "punctuation"
    first, last = inside[0], inside[-1]
    if {words[first].group().lower(), words[last].group().lower()} & STOPWORDS:
        return "not_a_phrase"

    def kind(i: int) -> str:
        word = words[i].group()
        return "num" if word[0].isdigit() else "cap" if word[0].isupper() and i > 0 else ""

    for a, b in ((first - 1, first), (last, last + 1)):
        if a >= 0 and b < len(words) and kind(a) and kind(a) == kind(b):
            return "cuts_name"
    return "noun_phrase"


WELL_FORMED = frozenset({"noun_phrase", "constituent"})


class PhraseJudge:
    """Judges spans of sentences with a parser (see the module), caching each sentence's
    parse by its text; without a parser it applies :func:`fallback_verdict`."""

    def __init__(self, parser: SpacyParser | LazyParser | None) -> None:
        self.parser = parser
        self.cache: dict[str, SentenceParse] = {}
        self.parsed_sentences = 0
        self.recording = False  # keep what is parsed in ``fresh`` (for a store to take)
        self.fresh: list[tuple[str, SentenceParse]] = []

    @property
    def parsed(self) -> bool:
        """Whether verdicts come from a real parser."""
        return self.parser is not None

    @property
    def identity(self) -> str:
        """The parser's :func:`parser_identity` ("" without a parser)."""
        return self.parser.identity if self.parser is not None else ""

    def remember(self, sentence: str, parse: SentenceParse) -> None:
        """Cache a parse made earlier (a stored one) as if it had been made now."""
        if len(self.cache) >= CACHE_SIZE:
            self.cache.clear()
        self.cache[sentence] = parse

    def take_fresh(self) -> list[tuple[str, SentenceParse]]:
        """The sentences parsed since the last call while ``recording``, with their parses."""
        fresh, self.fresh = self.fresh, []
        return fresh

    def _keep(self, sentence: str, parse: SentenceParse) -> None:
        self.remember(sentence, parse)
        if self.recording:
            self.fresh.append((sentence, parse))
        self.parsed_sentences += 1

    def prepare(self, sentences: Iterable[str]) -> None:
        """Parse the sentences not cached yet, in one batch (faster than one at a time)."""
        if self.parser is None:
            return
        todo = list(dict.fromkeys(s for s in sentences if s not in self.cache))
        with model_cpu.timed(model_cpu.PARSER):
            for sentence, parse in zip(todo, self.parser.parse_many(todo), strict=True):
                self._keep(sentence, parse)

    def knows(self, sentence: str) -> bool:
        """Whether judging ``sentence`` needs no parse now (parsed already, or no parser)."""
        return self.parser is None or sentence in self.cache

    def forget(self, sentences: Iterable[str]) -> None:
        """Drop the cached parses of ``sentences`` (a long page's, once it is placed)."""
        for sentence in sentences:
            self.cache.pop(sentence, None)

    def parse(self, sentence: str) -> SentenceParse | None:
        """The cached parse of a sentence (parsed now if new), None without a parser."""
        if self.parser is None:
            return None
        if sentence not in self.cache:
            with model_cpu.timed(model_cpu.PARSER):
                self._keep(sentence, self.parser.parse(sentence))
        return self.cache[sentence]

    def verdict(self, sentence: str, start: int, end: int) -> str:
        """:func:`span_verdict` of ``sentence[start:end]`` (:func:`fallback_verdict` without a
        parser)."""
        parse = self.parse(sentence)
        if parse is None:
            return fallback_verdict(sentence, start, end)
        return span_verdict(parse, sentence, start, end)

    def names_a_thing(self, sentence: str, start: int, end: int) -> bool:
        """Whether the words at ``start:end`` are used as a noun or a name (True without a
        parser): "reset" in "call reset first", not in "the state is reset"."""
        parse = self.parse(sentence)
        if parse is None:
            return True
        inside = [
            i for i, (s, e) in enumerate(zip(parse.starts, parse.ends, strict=True))
            if s < end and start < e
        ]  # fmt: skip
        return any(parse.pos[i] in NOUN_POS for i in inside)

    def well_formed(self, sentence: str, start: int, end: int) -> bool:
        """Whether ``sentence[start:end]`` is a well-formed anchor."""
        return self.verdict(sentence, start, end) in WELL_FORMED

    def repair(
        self, sentence: str, start: int, end: int, max_words: int = REPAIR_WORDS
    ) -> tuple[int, int] | None:
        """The smallest well-formed span of at most ``max_words`` words that contains
        ``start:end`` (the span itself when well formed), None when there is none."""
        if self.well_formed(sentence, start, end):
            return start, end
        touched = _touched_words(sentence, start, end)
        if touched is None:
            return None
        words, lo, hi = touched
        spans = []
        for a in range(max(0, hi - max_words + 1), lo + 1):
            for b in range(hi, min(len(words), a + max_words)):
                spans.append((b - a, a, b))
        for _, a, b in sorted(spans):
            for s, e in _trimmed(sentence, words[a][0], words[b][1]):
                if s <= start and end <= e and self.well_formed(sentence, s, e):
                    return s, e
        return None


def repair_reach(
    sentence: str, start: int, end: int, max_words: int = REPAIR_WORDS
) -> tuple[int, int]:
    """The part of ``sentence`` that every span :meth:`PhraseJudge.repair` may return for
    ``start:end`` lies in, found without a parse: from the word ``max_words`` - 1 words
    before the span's last word to the word as far after its first."""
    touched = _touched_words(sentence, start, end)
    if touched is None:
        return start, end
    words, lo, hi = touched
    left = words[max(0, hi - max_words + 1)][0]
    right = words[min(len(words) - 1, lo + max_words - 1)][1]
    return min(start, left), max(end, right)


def _touched_words(
    sentence: str, start: int, end: int
) -> tuple[list[tuple[int, int]], int, int] | None:
    """The sentence's words (spans of non-space) and the first and last of them that
    ``start:end`` touches; None when it touches none."""
    words = [(m.start(), m.end()) for m in WORD_RE.finditer(sentence)]
    first = [i for i, (_, e) in enumerate(words) if e > start]
    last = [i for i, (s, _) in enumerate(words) if s < end]
    if not first or not last:
        return None
    return words, first[0], last[-1]


def _trimmed(sentence: str, start: int, end: int) -> list[tuple[int, int]]:
    """The span of whole chunks ``start:end`` without its opening and closing punctuation."""
    s, e = start, end
    while s < e and sentence[s] in OPENERS:
        s += 1
    while e > s and sentence[e - 1] in CLOSERS:
        e -= 1
    return [(s, e)] if s < e else []


@functools.cache
def default_judge() -> PhraseJudge:
    """The process-wide judge with the installed parser (see :func:`installed_pipeline`),
    loaded at its first parse."""
    name = installed_pipeline()
    return PhraseJudge(LazyParser(name) if name else None)
