"""The site-wide models every candidate shard needs, built once per crawl.

* TF-IDF (:mod:`linkpipe.lib.text.tfidf`): vocabulary with document frequency and IDF, each
  page's weighted terms; the lexical index over them (:mod:`linkpipe.lib.text.lexical_index`).
* The name dictionary with link-probability counts (:mod:`linkpipe.lib.text.mentions`): each
  page's names (title, H1, anchors other pages use for it), how many pages mention each name and
  how many of those link its page.

Both come from one pass over every page's text, tokenised once. The TF-IDF statistics are
fitted, or (``fitted``) those of an earlier crawl kept and only the pages' rows computed.
:func:`model_tables` and :func:`models_from_tables` are the mapping to the ``site_terms``,
``site_page_terms`` and ``site_names`` tables.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl
from scipy import sparse

from linkpipe.lib.links.anchors import STOP_STEMS, target_phrases
from linkpipe.lib.processes import ordered_map
from linkpipe.lib.text.key_pages import pages_holding
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.lexical_index import IndexSettings, LexicalIndex
from linkpipe.lib.text.mentions import Key, MentionIndex
from linkpipe.lib.text.page_pass import (
    BATCH_PAGES,
    PassPage,
    batched,
    count_names,
    page_pass,
    pass_workers,
)
from linkpipe.lib.text.postings import Postings
from linkpipe.lib.text.term_counts import CountsJoiner
from linkpipe.lib.text.tfidf import (
    TfidfModel,
    fit_counts,
    merge_rows,
    model_frames,
    model_from_frames,
    model_from_rows,
    transform_counts,
)

MAX_KNOWN_ANCHORS = 50  # per target, most used first
MAX_TEXT_CHARS = 20_000  # of each page's main text used for TF-IDF and mention counts


@dataclass
class SitePage:
    """What candidate generation knows of one indexable page."""

    url: str
    title: str
    h1: str
    slug: str
    main_text: str = ""  # where mentions of other pages are counted (only to build the models)

    @property
    def text(self) -> str:
        """Title, H1 and main text: what TF-IDF compares."""
        return " ".join(filter(None, [self.title, self.h1, self.main_text]))


class StoredRows(NamedTuple):
    """Each page's TF-IDF row and the lexical index's postings, as built from the stored
    models (what :func:`models_from_rows` does not rebuild)."""

    urls: list[str]
    matrix: sparse.csr_matrix  # pages x terms
    postings: Postings


@dataclass
class SiteModels:
    """TF-IDF model, lexical index and name dictionary of one crawl."""

    tfidf: TfidfModel
    mentions: MentionIndex
    index: LexicalIndex


def page_names(page: SitePage, known_anchors: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The phrases that name a page: title, H1 and the anchors other pages use for it (what
    :func:`site_names` finds for every page)."""
    anchors = known_anchors.get(page.url, [])[:MAX_KNOWN_ANCHORS]
    return target_phrases(page.title, page.h1, "", anchors)


NamedPage = tuple[str, list[tuple[str, str]], list[Key]]  # url, its names, their keys


def site_names(pages: Sequence[SitePage], known_anchors: dict[str, list[str]]) -> MentionIndex:
    """The name dictionary of ``pages`` (not yet counted), their names found in worker
    processes on a large site (as :func:`~linkpipe.lib.text.page_pass.page_pass` decides)."""
    workers = pass_workers(len(pages))
    chunks = (
        (chunk, {p.url: known_anchors[p.url] for p in chunk if p.url in known_anchors})
        for chunk in batched(pages, BATCH_PAGES)
    )
    named = ordered_map(_named, chunks, workers) if workers > 1 else map(_named, chunks)
    urls = {p.url: p.url for p in pages} if workers > 1 else {}
    names: dict[str, Sequence[tuple[str, str]]] = {}
    keys: dict[str, list[Key]] = {}
    for chunk in named:
        for url, phrases, page_keys in chunk:
            if workers > 1:  # this process's strings, not a copy of each from every worker
                url, page_keys = urls[url], [tuple(map(sys.intern, k)) for k in page_keys]
            names[url], keys[url] = phrases, page_keys
    return MentionIndex(names, (), {}, STOP_STEMS, keys=keys)


def _named(chunk: tuple[list[SitePage], dict[str, list[str]]]) -> list[NamedPage]:
    """Each page's names (:func:`page_names`) and their keys (run in a worker process on a
    large site); ``chunk``: pages and the known anchors of those that have some."""
    out: list[NamedPage] = []
    pages, anchors = chunk
    for page in pages:
        phrases = page_names(page, anchors)
        out.append((page.url, phrases, [phrase_key(p) for p, _ in phrases]))
    return out


def _pass_pages(pages: Iterable[SitePage], links: dict[str, set[str]]) -> Iterator[PassPage]:
    """The pages as the page pass reads them (main text capped, content links)."""
    for page in pages:
        text = page.main_text[:MAX_TEXT_CHARS]
        yield PassPage(page.url, page.title, page.h1, text, tuple(links.get(page.url, ())))


def build_site_models(
    pages: list[SitePage],
    texts: Iterable[SitePage],
    content_links: dict[str, set[str]],
    known_anchors: dict[str, list[str]],
    settings: IndexSettings | None = None,
    fitted: TfidfModel | None = None,
) -> SiteModels:
    """Models over ``texts`` (the pages with their main text, read once: a generator keeps a
    batch in memory at a time; counted in worker processes on a large site, see
    :mod:`~linkpipe.lib.text.page_pass`); ``pages`` (main text not needed) give every page's
    names. ``fitted``: TF-IDF statistics to keep
    (:func:`~linkpipe.lib.text.tfidf.transform_counts`), else they are fitted on ``texts``."""
    mentions = site_names(pages, known_anchors)
    joiner = CountsJoiner(None if fitted is None else [str(t) for t in fitted.terms])
    page_pass(_pass_pages(texts, content_links), mentions, joiner, len(pages))
    tfidf = fit_counts(joiner) if fitted is None else transform_counts(joiner, fitted)
    return SiteModels(tfidf, mentions, LexicalIndex(tfidf.matrix, settings))


TextsOf = Callable[[list[str]], list[tuple[SitePage, set[str]]]]
"""The given pages of the crawl with their main text and content links."""

SinceFit = Callable[[], set[str]]
"""The pages of the crawl whose title, H1 or main text differ from those of the crawl the
TF-IDF statistics were fitted on, or that it lacks."""

RECOUNT_SHARE = 0.25  # more unchanged pages to read for new names: every page is counted again


def update_site_models(
    previous: SiteModels,
    pages: list[SitePage],
    before: Iterable[tuple[SitePage, set[str]]],
    after: Iterable[tuple[SitePage, set[str]]],
    known_anchors: dict[str, list[str]],
    settings: IndexSettings | None = None,
    texts_of: TextsOf | None = None,
    since_fit: SinceFit | None = None,
) -> ModelUpdate | None:
    """``previous`` (a crawl's models, whose TF-IDF statistics this crawl keeps) brought to this
    crawl's ``pages``: ``before``, the pages that changed or went as the previous crawl had them
    (with main text and content links), are counted out of the name dictionary; ``after``, the
    pages that changed or came (likewise), are counted in and get new rows; every other page
    keeps its row. Names that are new or name other pages than before are counted again on
    the pages that may hold them (:mod:`~linkpipe.lib.text.key_pages`; for a name of words
    the statistics never saw, the pages ``since_fit`` gives), read with ``texts_of``. The same
    models as :func:`build_site_models` with the kept statistics; None when too many pages
    would be read for the new names (every page is then counted)."""
    names = site_names(pages, known_anchors)
    recount = previous.mentions.recount_for(names)
    went, came = list(before), list(after)
    changed = {p.url for p, _ in went} | {p.url for p, _ in came}
    holding = _may_hold(previous.tfidf, recount, changed, len(pages), since_fit)
    if holding is None or (holding and texts_of is None):
        return None
    mentions = previous.mentions.carried_to(names, recount)
    counted = mentions.only(set(mentions.targets) - recount) if recount else mentions
    gone = _pass_pages([p for p, _ in went], {p.url: linked for p, linked in went})
    mentions.add(count_names(gone, counted), sign=-1)
    links = {p.url: linked for p, linked in came}
    joiner = CountsJoiner([str(t) for t in previous.tfidf.terms])
    page_pass(_pass_pages([p for p, _ in came], links), mentions, joiner, len(came))
    if holding and texts_of is not None:
        read = texts_of(holding)
        unchanged = _pass_pages([p for p, _ in read], {p.url: linked for p, linked in read})
        mentions.add(count_names(unchanged, mentions.only(recount)))
    fresh = transform_counts(joiner, previous.tfidf)
    tfidf = merge_rows(previous.tfidf, fresh, [p.url for p in pages])
    models = SiteModels(tfidf, mentions, LexicalIndex(tfidf.matrix, settings))
    return ModelUpdate(models, len(recount), len(holding))


class ModelUpdate(NamedTuple):
    """Models brought to a crawl by :func:`update_site_models`, with the names it counted
    again and the unchanged pages it read for them."""

    models: SiteModels
    names_recounted: int
    pages_reread: int

    def figures(self) -> dict[str, int]:
        """The counts a stage's metadata shows."""
        return {"names_recounted": self.names_recounted, "pages_reread": self.pages_reread}


def _may_hold(
    previous: TfidfModel,
    recount: set[Key],
    changed: set[str],
    n_pages: int,
    since_fit: SinceFit | None,
) -> list[str] | None:
    """The unchanged pages (in ``previous``, not in ``changed``) that may hold one of the
    names ``recount`` (:func:`~linkpipe.lib.text.key_pages.pages_holding`), in URL order;
    None when any page may, or when they are more than :data:`RECOUNT_SHARE` of the
    ``n_pages``."""
    if not recount:
        return []
    found = pages_holding(previous, recount, since_fit)
    if found is None:
        return None
    urls = sorted(found - changed)
    return urls if len(urls) <= RECOUNT_SHARE * max(1, n_pages) else None


def model_tables(models: SiteModels, urls: Sequence[str] | None = None) -> dict[str, pl.DataFrame]:
    """The rows of ``site_terms``, ``site_page_terms`` (of ``urls`` only, when given) and
    ``site_names``."""
    terms, rows = model_frames(models.tfidf, urls)
    return {"site_terms": terms, "site_page_terms": rows, "site_names": models.mentions.frame()}


def models_from_tables(
    terms: pl.DataFrame,
    page_terms: pl.DataFrame,
    names: pl.DataFrame,
    settings: IndexSettings | None = None,
    fit_pages: int = 0,
) -> SiteModels:
    """The models stored by :func:`model_tables`, ready to use (the index is rebuilt from the
    stored rows: a sort, no refit); ``fit_pages``: the pages the statistics were counted on
    (0: those of ``page_terms``)."""
    tfidf = model_from_frames(terms, page_terms, fit_pages)
    return SiteModels(tfidf, MentionIndex.from_frame(names), LexicalIndex(tfidf.matrix, settings))


def models_from_rows(
    terms: pl.DataFrame,
    rows: StoredRows,
    names: pl.DataFrame,
    settings: IndexSettings,
    fit_pages: int = 0,
) -> SiteModels:
    """The models of :func:`models_from_tables` with the page rows and the index's postings
    already in matrices (``rows``: read from memory-mapped files, used as they are)."""
    tfidf = model_from_rows(terms, rows.urls, rows.matrix, fit_pages)
    index = LexicalIndex(tfidf.matrix, settings, rows.postings)
    return SiteModels(tfidf, MentionIndex.from_frame(names), index)
