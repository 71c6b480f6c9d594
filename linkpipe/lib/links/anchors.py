"""Where a new link goes: the sentence in the source's main text and the exact anchor span.

Anchors are always words already in the source sentence (never invented), never generic, never
inside a heading or an existing link. Exact mentions of the target's title, H1, slug or the
anchors other pages already use for it win; otherwise the best 2-6 word window of the
sentence that shares the most weighted terms with the target is chosen. Every anchor is a
well-formed phrase of its sentence (see :mod:`linkpipe.lib.text.phrases`): a window that is not
gives way to the next best one, in the same sentence or the next; an exact mention that is not
grows to the smallest well-formed phrase around it (and stays as it is when none fits). Below a quality floor there is no anchor
and the opportunity says it needs a new sentence. A window is never made only of words the
whole site uses (see :data:`UBIQUITOUS_DOC_SHARE`): it gives way to the next, like a generic
one; names of the target are exempt. Across a site's
opportunities, :class:`AnchorLedger` keeps anchors varied and non-overlapping.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.links.parse_rounds import ParseNeeded
from linkpipe.lib.text.lexical import is_generic_anchor, phrase_key, tokens_with_offsets
from linkpipe.lib.text.phrases import PhraseJudge, default_judge, repair_reach
from linkpipe.lib.text.stopwords import STOPWORDS

LINKABLE_BLOCKS = ("paragraph", "item", "quote", "cell")  # not headings, not <pre> blocks
TITLE_SPLIT_RE = re.compile(r"\s*(?:[:|\u2013\u2014]|\s-\s)\s*")
TITLE_PREFIX_RE = re.compile(
    r"^(the\s+)?((complete|ultimate|beginner'?s?|practical|definitive|quick|short)\s+)*"
    r"(guide|introduction|intro|primer|checklist|handbook)\s+(to|for|on)\s+",
    re.IGNORECASE,
)
PHRASE_KIND_QUALITY = {"known_anchor": 1.0, "title": 1.0, "h1": 1.0, "slug": 0.9}
PUNCT_RE = re.compile(r"[,;:()\[\]\u2013\u2014\"]|\s-\s")
STOP_STEMS = frozenset(phrase_key(" ".join(STOPWORDS)))
WORD_OK_RE = re.compile(r"^[^\W\d_][\w'\-]*$", re.UNICODE)

SentenceRange = tuple[int, int, int, int, int]  # (paragraph_idx, start, end, tok_lo, tok_hi)


@dataclass
class SourceText:
    """The source page's main text with its sentences and existing-link spans."""

    text: str
    sentences: list[tuple[int, int, int, str]]  # (paragraph_idx, start, end, block_kind)
    link_spans: list[tuple[int, int]] = field(default_factory=list)
    judge: PhraseJudge | None = None  # None: the installed parser (:func:`default_judge`)

    def __post_init__(self) -> None:
        if self.judge is None:
            self.judge = default_judge()
        self.deferring = False  # see deferred_parses

    def release(self) -> None:
        """Drop what was computed from the text (tokens, stems, sentence ranges, words and
        their positions: ~100-200 KB a page); it is computed again if asked for. A shard
        releases each batch's sources once they are placed, so its memory holds one batch's,
        not every source's (at 100k pages a shard has 25,000)."""
        for name in _DERIVED:
            self.__dict__.pop(name, None)

    @functools.cached_property
    def digest(self) -> str:
        """sha1 of the text, its sentences and link spans: what the source contributes to its
        placements (:func:`~linkpipe.lib.links.anchor_reuse.source_key`), made once (the gate,
        the row digest and the anchor keys each read it)."""
        digest = hashlib.sha1(self.text.encode("utf-8", "surrogatepass"))
        digest.update(repr((self.sentences, self.link_spans)).encode())
        return digest.hexdigest()

    @functools.cached_property
    def tokens(self) -> list[tuple[str, int, int]]:
        """(stem, start, end) of every word, made when first asked for (a source copied from
        the previous crawl never is)."""
        return tokens_with_offsets(self.text)

    @functools.cached_property
    def stems(self) -> list[str]:
        """The stem of every token."""
        return [t[0] for t in self.tokens]

    def _sentence(self, sent_start: int, sent_end: int) -> str:
        """The sentence's text; while deferring, :class:`ParseNeeded` when it is not parsed."""
        assert self.judge is not None
        sentence = self.text[sent_start:sent_end]
        if self.deferring and not self.judge.knows(sentence):
            raise ParseNeeded(sentence)
        return sentence

    def well_formed(self, start: int, end: int, sent_start: int, sent_end: int) -> bool:
        """Whether ``text[start:end]`` is a well-formed phrase of the sentence
        ``text[sent_start:sent_end]`` (see :mod:`linkpipe.lib.text.phrases`)."""
        assert self.judge is not None
        sentence = self._sentence(sent_start, sent_end)
        return self.judge.well_formed(sentence, start - sent_start, end - sent_start)

    def names_a_thing(self, start: int, end: int, sent_start: int, sent_end: int) -> bool:
        """Whether ``text[start:end]`` is used as a noun or name in its sentence (see
        :meth:`PhraseJudge.names_a_thing`)."""
        assert self.judge is not None
        sentence = self._sentence(sent_start, sent_end)
        return self.judge.names_a_thing(sentence, start - sent_start, end - sent_start)

    @contextlib.contextmanager
    def deferred_parses(self) -> Iterator[None]:
        """Inside the block a judgement that needs a sentence not parsed yet raises
        :class:`ParseNeeded` instead of parsing it alone (see
        :func:`~linkpipe.lib.links.parse_rounds.place_in_rounds`)."""
        self.deferring = True
        try:
            yield
        finally:
            self.deferring = False

    def forget_parses(self) -> None:
        """Drop the cached parses of this text's sentences (see :meth:`PhraseJudge.forget`)."""
        assert self.judge is not None
        self.judge.forget(self.text[s:e] for _, s, e, _, _ in self.ranges)

    def repair(
        self, start: int, end: int, sent_start: int, sent_end: int
    ) -> tuple[int, int] | None:
        """The smallest well-formed phrase of the sentence around ``text[start:end]``, in
        offsets of the text; None when there is none (see :meth:`PhraseJudge.repair`)."""
        assert self.judge is not None
        sentence = self._sentence(sent_start, sent_end)
        span = self.judge.repair(sentence, start - sent_start, end - sent_start)
        return None if span is None else (span[0] + sent_start, span[1] + sent_start)

    def repair_reach(
        self, start: int, end: int, sent_start: int, sent_end: int
    ) -> tuple[int, int]:
        """Where every span :meth:`repair` may return for ``text[start:end]`` lies, in offsets
        of the text, found without a parse (see :func:`~linkpipe.lib.text.phrases.repair_reach`)."""
        sentence = self.text[sent_start:sent_end]
        lo, hi = repair_reach(sentence, start - sent_start, end - sent_start)
        return lo + sent_start, hi + sent_start

    @functools.cached_property
    def ranges(self) -> list[SentenceRange]:
        """The linkable sentences with their token ranges (see :func:`sentence_token_ranges`)."""
        out = []
        starts = [t[1] for t in self.tokens]
        for para, s, e, kind in self.sentences:
            if kind not in LINKABLE_BLOCKS:
                continue
            lo = bisect.bisect_left(starts, s)
            hi = bisect.bisect_left(starts, e)
            if hi > lo:
                out.append((para, s, e, lo, hi))
        return out

    @functools.cached_property
    def content_words(self) -> list[str | None]:
        """Each token's lower-cased word when it can carry meaning (no stopword, number or
        word under 3 letters), else None."""
        out: list[str | None] = []
        for stem, start, end in self.tokens:
            word = self.text[start:end].lower()
            ok = stem not in STOP_STEMS and len(word) >= 3 and WORD_OK_RE.match(word)
            out.append(word if ok else None)
        return out

    @functools.cached_property
    def stem_codes(self) -> tuple[dict[str, int], NDArray[np.int64]]:
        """(a number for each distinct stem, the number of each token's stem)."""
        code_of: dict[str, int] = {}
        codes = np.array([code_of.setdefault(s, len(code_of)) for s in self.stems], np.int64)
        return code_of, codes

    @functools.cached_property
    def stem_index(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The tokens of the linkable sentences ordered by stem (:attr:`stem_codes`), then by
        token, and where each stem's run of them starts (one more entry than stems): what
        :meth:`positions_of` reads (a few names a target; a dict of every stem's tokens cost
        more than all its lookups)."""
        codes = self.stem_codes[1]
        at = np.flatnonzero(self.token_sentence >= 0)
        order = at[np.argsort(codes[at], kind="stable")]
        starts = np.searchsorted(codes[order], np.arange(len(self.stem_codes[0]) + 1))
        return order, starts

    def positions_of(self, stem: str) -> list[int]:
        """The tokens of ``stem`` in the linkable sentences, in order (their sentences:
        :attr:`token_sentence`)."""
        code = self.stem_codes[0].get(stem)
        if code is None:
            return []
        order, starts = self.stem_index
        found: list[int] = order[starts[code] : starts[code + 1]].tolist()
        return found

    @functools.cached_property
    def token_sentence(self) -> NDArray[np.int64]:
        """The linkable sentence (number of :attr:`ranges`) of each token, -1 outside them."""
        out = np.full(len(self.tokens), -1, np.int64)
        for number, (_, _, _, lo, hi) in enumerate(self.ranges):
            out[lo:hi] = number
        return out

    @functools.cached_property
    def name_hit_memo(self) -> dict[str, tuple[object, list[tuple[int, int, int, str]]]]:
        """target URL -> (the target's name keys, :func:`name_hits`): the candidate step asks
        for a pair's hits twice (to read the parses of the sentences they are in, then to
        place the names)."""
        return {}


_DERIVED = (
    "digest",
    "tokens",
    "stems",
    "ranges",
    "content_words",
    "stem_codes",
    "stem_index",
    "token_sentence",
    "name_hit_memo",
)
"""The cached properties of :class:`SourceText`, all computed from its text."""


@dataclass
class TargetProfile:
    """What identifies a target: phrases to look for and weighted terms (stems).

    A one-word phrase names the target only when listed in ``single_words`` (the site itself
    links that word to the target; see :mod:`linkpipe.lib.text.mentions`): "Services" alone is too
    vague, "GDAL" on a site that links it to the GDAL page is not."""

    url: str
    phrases: list[tuple[str, str]]  # (phrase, kind)
    terms: dict[str, float]
    single_words: frozenset[tuple[str, ...]] = frozenset()

    def __post_init__(self) -> None:
        self.keys: dict[tuple[str, ...], str] = {}  # phrase key -> kind of its first phrase
        for phrase, kind in self.phrases:
            key = phrase_key(phrase)
            if not key or len(key) > 12 or is_generic_anchor(phrase):
                continue
            if len(key) == 1 and key not in self.single_words:
                continue
            self.keys.setdefault(key, kind)
        self.lengths = sorted({len(k) for k in self.keys}, reverse=True)


WINDOW_KINDS = frozenset({"phrase", "semantic"})  # choices found in the text, not names

# A word used by at least this share of a site's pages is *ubiquitous*: it names the site or
# its medium ("ikiwiki", "wiki", "page", "plugin" on ikiwiki's wiki), not one page, so a window
# made only of such words ("ikiwiki plugins", "pages in the wiki") says nothing about the
# target it would link, and an editor rejects it. Half is where TF-IDF already stops weighing
# a term (:data:`linkpipe.lib.text.tfidf.MAX_DOC_SHARE`): such a word never tells one page
# from another. A window is not placed when every content word of it is ubiquitous; an exact
# name of the target (title, H1, known anchor, slug) is exempt: it is how the site names it.
UBIQUITOUS_DOC_SHARE = 0.5
# Under this many pages the rule is off: on a handful of pages every word is in half of them.
UBIQUITOUS_MIN_PAGES = 10


@dataclass(frozen=True, slots=True)
class AnchorChoice:
    """One placement: ``text[start:end]`` is the anchor, ``sentence`` the sentence it is in
    (starting at ``sentence_start`` of the source's main text)."""

    anchor_text: str
    start: int
    end: int
    sentence: str
    sentence_start: int
    paragraph_idx: int
    source_kind: str  # title | h1 | known_anchor | slug | phrase | semantic
    quality: float


def title_phrases(title: str) -> list[str]:
    """A title and its meaningful parts: "Guide to X: Y" -> ["Guide to X: Y", "X", "Y"]."""
    out = [title.strip()]
    for part in TITLE_SPLIT_RE.split(title):
        part = TITLE_PREFIX_RE.sub("", part.strip())
        if part and part not in out:
            out.append(part)
    return [p for p in out if len(phrase_key(p)) >= 1]


def target_phrases(
    title: str, h1: str, slug: str, known_anchors: list[str]
) -> list[tuple[str, str]]:
    """Phrases that name the target, with their kind."""
    phrases = [(p, "title") for p in title_phrases(title)]
    phrases += [(p, "h1") for p in title_phrases(h1) if h1]
    phrases += [(a, "known_anchor") for a in known_anchors if not is_generic_anchor(a)]
    if slug:
        phrases.append((slug, "slug"))
    return phrases


def sentence_token_ranges(src: SourceText) -> list[SentenceRange]:
    """(paragraph_idx, sent_start, sent_end, tok_lo, tok_hi) for linkable sentences."""
    return src.ranges


def overlaps_link(src: SourceText, start: int, end: int) -> bool:
    """Whether ``start:end`` overlaps a link already in the source."""
    return any(start < le and ls < end for ls, le in src.link_spans)


def token_choice(
    src: SourceText, sent: SentenceRange, lo: int, hi: int, kind: str, q: float
) -> AnchorChoice:
    """The placement of tokens ``lo:hi`` of sentence ``sent``, of ``kind`` and quality ``q``."""
    para, s, e = sent[0], sent[1], sent[2]
    start, end = src.tokens[lo][1], src.tokens[hi - 1][2]
    return AnchorChoice(src.text[start:end], start, end, src.text[s:e], s, para, kind, q)


def only_ubiquitous(src: SourceText, lo: int, hi: int, ubiquitous: frozenset[str]) -> bool:
    """Whether every content word (no stopword) of tokens ``lo:hi`` is one of the site's
    ``ubiquitous`` stems (see :data:`UBIQUITOUS_DOC_SHARE`)."""
    content = [s for s in src.stems[lo:hi] if s not in STOP_STEMS]
    return bool(ubiquitous) and bool(content) and all(s in ubiquitous for s in content)


def non_overlapping(
    choices: Iterable[AnchorChoice], limit: int | None = None
) -> list[AnchorChoice]:
    """``choices`` in order, but each that overlaps an earlier one; the first ``limit``."""
    out: list[AnchorChoice] = []
    for choice in choices:
        if limit is not None and len(out) >= limit:
            break
        if all(choice.end <= c.start or choice.start >= c.end for c in out):
            out.append(choice)
    return out
