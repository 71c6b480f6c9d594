"""The one pass over every page's text that the site models need: the stems TF-IDF counts
and the names each page's main text mentions (and which of them it links).

Pages are counted in batches (:func:`count_pages`), each into term counts over a vocabulary of
its own and name counts, then joined in the pages' order (:func:`page_pass`); on a large site
the batches are counted by one worker process per core (:func:`~linkpipe.lib.processes.ordered_map`),
which gives the same counts as one process, bit for bit.
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import NamedTuple, TypeVar

from linkpipe.lib.processes import ordered_map, worker_count
from linkpipe.lib.text.lexical import TOKEN_RE, stem
from linkpipe.lib.text.mentions import MentionCounts, MentionIndex
from linkpipe.lib.text.stopwords import STOPWORDS
from linkpipe.lib.text.term_counts import BatchCounts, CountsJoiner, count_batch

BATCH_PAGES = 5_000
MIN_PARALLEL_PAGES = 20_000  # smaller sites in one process: starting workers costs more
MAX_KNOWN_WORDS = 1 << 20  # words whose stem is kept (a site's words are Zipf-distributed)


class PassPage(NamedTuple):
    """What the pass reads of a page (a tuple: cheap to make and to send to a worker)."""

    url: str
    title: str
    h1: str
    main_text: str
    linked: tuple[str, ...]  # the pages its content links


@dataclass(frozen=True)
class PassBatch:
    """The counts of a batch of pages."""

    terms: BatchCounts
    mentions: MentionCounts


Item = TypeVar("Item")
_WORDS: dict[str, tuple[str, bool]] = {}  # word -> (stem, counted by TF-IDF)


def _learn(word: str) -> tuple[str, bool]:
    if len(_WORDS) >= MAX_KNOWN_WORDS:
        _WORDS.clear()
    known = _WORDS[word] = (stem(word), word.lower() not in STOPWORDS)
    return known


def _words(text: str) -> list[tuple[str, bool]]:
    """(stem, counted by TF-IDF) of every word of ``text``."""
    get = _WORDS.get
    words = TOKEN_RE.findall(text)
    known = [get(w) for w in words]
    if None in known:
        return [k or _learn(w) for k, w in zip(known, words, strict=True)]
    return known  # type: ignore[return-value]  # no None in it


def page_stems(title: str, h1: str, main_text: str) -> tuple[list[str], list[str]]:
    """(what TF-IDF counts in title, H1 and main text: every word but stopwords, stemmed;
    every stem of the main text, where names are found)."""
    words = _words(main_text)
    counted = [s for s, c in _words(title) if c] + [s for s, c in _words(h1) if c]
    counted += [s for s, c in words if c]
    return counted, [s for s, _ in words]


def count_pages(pages: Sequence[PassPage], names: MentionIndex) -> PassBatch:
    """The term and name counts of ``pages``."""
    mentions = MentionCounts()

    def documents() -> Iterator[tuple[str, list[str]]]:
        for page in pages:
            counted, stems = page_stems(page.title, page.h1, page.main_text)
            names.counts_in(page.url, stems, set(page.linked), mentions)
            yield page.url, counted

    return PassBatch(count_batch(documents()), mentions)


def count_names(pages: Iterable[PassPage], names: MentionIndex) -> MentionCounts:
    """The name counts of ``pages`` alone (no terms counted)."""
    mentions = MentionCounts()
    for page in pages:
        stems = [s for s, _ in _words(page.main_text)]
        names.counts_in(page.url, stems, set(page.linked), mentions)
    return mentions


def page_pass(
    pages: Iterable[PassPage],
    names: MentionIndex,
    joiner: CountsJoiner,
    total: int,
    workers: int | None = None,
) -> None:
    """Count every page (``total`` of them): its names into ``names``, its terms into
    ``joiner``, in the pages' order; ``workers``: processes (default: one per core from
    :data:`MIN_PARALLEL_PAGES` pages, else 1)."""
    workers = pass_workers(total) if workers is None else workers
    batches = batched(pages, BATCH_PAGES)
    if workers > 1:
        sent = pickle.dumps(names, protocol=pickle.HIGHEST_PROTOCOL)  # once for every worker
        counted = ordered_map(_count_in_worker, batches, workers, _keep_names, (sent,))
    else:
        counted = map(functools.partial(count_pages, names=names), batches)
    for batch in counted:
        names.add(batch.mentions)
        joiner.add(batch.terms)


def pass_workers(total: int) -> int:
    """Processes for a pass over ``total`` pages: one per core from :data:`MIN_PARALLEL_PAGES`
    pages (``LINKPIPE_WORKERS`` when set), else 1."""
    return worker_count(total // BATCH_PAGES) if total >= MIN_PARALLEL_PAGES else 1


def batched(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


_NAMES: list[MentionIndex] = []  # in a worker: the names it finds


def _keep_names(names: bytes) -> None:
    _NAMES[:] = [pickle.loads(names)]


def _count_in_worker(pages: list[PassPage]) -> PassBatch:
    return count_pages(pages, _NAMES[0])
