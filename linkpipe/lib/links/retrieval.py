"""Retrieval: the candidate targets of each source page, by embedding (the ANN index), by
TF-IDF (the lexical index) and by the names its text mentions; pages it already links in its
content are skipped, and found again as the site's labelled pairs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.kept_list import KeptList, searched_list
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.text.lexical_index import Bounds
from linkpipe.lib.text.mentions import Mention
from linkpipe.lib.vectors.ann import AnnIndex

MIN_MENTION_PROBABILITY = 0.05  # a mention below this does not make a pair a candidate


def named_targets(site: SiteContext, source: str, src: SourceText) -> dict[str, Mention]:
    """Targets the source names (title, H1 or known anchor), with their link probability."""
    stems = [t[0] for t in src.tokens]
    return site.mentions.mentions_in(stems, exclude={source})


def tfidf_neighbours(
    site: SiteContext,
    sources: list[str],
    ks: Sequence[int],
    kept: Mapping[str, KeptList] | None = None,
) -> list[KeptList]:
    """For each source, up to its number in ``ks`` of pages of highest TF-IDF cosine, best
    first, as the lexical index finds them (its recall against comparing with every page is
    measured with the site models), with the bounds they hang on; ``kept``: the lists of
    sources that are not searched again (:mod:`~linkpipe.lib.links.kept_lexical`). Pages
    without a vector are in the lists: :attr:`Searched.lexical` leaves them out."""
    tfidf, kept = site.models.tfidf, kept or {}
    rows = [tfidf.row_of.get(s, -1) if s not in kept else -1 for s in sources]
    asked = [(r, n) for r, n in zip(rows, ks, strict=True) if r >= 0]
    bounds: list[Bounds] = []
    found = site.models.index.neighbours(
        [r for r, _ in asked], [n for _, n in asked], bounds=bounds
    )
    searched = iter(zip(found, bounds, strict=True))
    out = []
    for source, row in zip(sources, rows, strict=True):
        if source in kept:
            out.append(kept[source])
        elif row < 0:
            out.append(KeptList((), None, 0.0))
        else:
            near, b = next(searched)
            urls = tuple(tfidf.urls[j] for j in near)
            out.append(searched_list(urls, b, tfidf.urls))
    return out


@dataclass(frozen=True, slots=True)
class CandidateLimits:
    """How many candidates of each kind a source gets."""

    k: int = 20  # nearest pages by embedding
    min_similarity: float = 0.2  # embedding neighbours below this are no candidates
    k_lexical: int = 10  # nearest pages by TF-IDF
    k_mention: int = 20  # pages the source names, by link probability


@dataclass(frozen=True, slots=True)
class Retrieved:
    """A source's candidate targets before anchors are placed: target -> similarity (the
    embedding neighbours best first, then the other targets), and the targets its text names;
    ``linked``: the targets the same search found that the source already links in content
    (see :func:`linked_neighbours`). No row reads a target's place among the others: an
    edited page that moves among a source's hits changes no other pair (:mod:`source_gate`)."""

    source: str
    neighbours: dict[str, float]
    named: dict[str, Mention]
    linked: dict[str, float] = field(default_factory=dict)  # labelled pairs: target -> sim


MAX_LINKED_DEPTH = 200  # embedding hits a source's search reads at most beyond k for its links


@dataclass(frozen=True)
class Searched:
    """What the two indexes found for a batch of sources (the first step of :func:`retrieve`):
    each source's embedding hits, best first (similarities and ANN rows; the arrays are as deep
    as the batch's most linked source needs, a source reads its own ``depth``: :meth:`hits`)
    and TF-IDF neighbours."""

    sources: list[str]
    query: np.ndarray  # the sources' vectors
    sims: np.ndarray
    ids: np.ndarray
    lexical: list[list[str]]
    depth: list[int] = field(default_factory=list)  # each source's embedding hits
    lists: list[KeptList] = field(default_factory=list)  # the TF-IDF lists as found

    def hits(self, qi: int) -> tuple[np.ndarray, np.ndarray]:
        """(similarities, ANN rows) of the ``qi``-th source's embedding hits, best first."""
        depth = self.depth[qi] if self.depth else self.ids.shape[1]
        return self.sims[qi][:depth], self.ids[qi][:depth]


def search(
    site: SiteContext,
    sources: list[str],
    ann: AnnIndex,
    limits: CandidateLimits,
    kept: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
    kept_lists: Mapping[str, KeptList] | None = None,
) -> Searched:
    """The embedding and TF-IDF neighbours of the sources (those of the site), in one batch.
    Already-linked pages do not use up a source's places: it searches deeper by as many pages
    as it links (the embedding index up to :data:`MAX_LINKED_DEPTH` deeper), by its own links
    alone, so that what it finds does not depend on the sources searched beside it. ``kept``
    and ``kept_lists``: the embedding hits (similarities, index rows) and the TF-IDF lists of
    sources whose index is not searched again (:mod:`~linkpipe.lib.links.kept_hits`,
    :mod:`~linkpipe.lib.links.kept_lexical`)."""
    sources = [s for s in sources if s in site.row_of]
    if not sources:
        return Searched([], np.zeros((0, 1)), np.zeros((0, 0)), np.zeros((0, 0), np.int64), [])
    query = site.vectors[[site.row_of[s] for s in sources]]
    linked = [len(site.content_links.get(s, ())) for s in sources]
    depth = [search_depth(limits, n) for n in linked]
    kept = {s: kept[s] for s in sources if s in kept} if kept else {}  # this batch's
    asked = [i for i, s in enumerate(sources) if s not in kept]
    found = (
        ann.search(query[asked], max(depth[i] for i in asked))
        if asked
        else (np.zeros((0, 0), np.float32), np.zeros((0, 0), np.int64))
    )
    sims, ids = _hits_table(sources, asked, found, kept)
    for i in asked:
        depth[i] = min(depth[i], found[1].shape[1])
    for i, s in enumerate(sources):
        depth[i] = len(kept[s][0]) if s in kept else depth[i]
    ks = [limits.k_lexical + 1 + n for n in linked]
    lists = tfidf_neighbours(site, sources, ks, kept_lists)
    lexical = [[u for u in listed.urls if u in site.row_of] for listed in lists]
    return Searched(sources, query, sims, ids, lexical, depth, lists)


def search_depth(limits: CandidateLimits, linked: int) -> int:
    """The embedding hits a source's search asks for: ``k`` and itself, and as many more as
    it links pages (up to :data:`MAX_LINKED_DEPTH`)."""
    return limits.k + 1 + min(linked, MAX_LINKED_DEPTH)


def _hits_table(
    sources: list[str],
    asked: list[int],
    found: tuple[np.ndarray, np.ndarray],
    kept: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """(similarities, rows) of every source's hits, one row a source: those the index found
    for the sources ``asked`` (their places), the ``kept`` ones (the batch's) for the
    others; the rest of a row is empty (row -1)."""
    if not kept:
        return found
    width = max([found[1].shape[1], *(len(h[1]) for h in kept.values())])
    sims = np.full((len(sources), width), -np.inf, dtype=np.float32)
    ids = np.full((len(sources), width), -1, dtype=np.int64)
    sims[asked, : found[0].shape[1]] = found[0]
    ids[asked, : found[1].shape[1]] = found[1]
    for i, s in enumerate(sources):
        if s in kept:
            sims[i, : len(kept[s][0])], ids[i, : len(kept[s][1])] = kept[s]
    return sims, ids


def retrieve(
    site: SiteContext,
    sources: list[str],
    texts: dict[str, SourceText],
    ann: AnnIndex,
    limits: CandidateLimits,
) -> list[Retrieved]:
    """The candidate targets of each source (of the site): its ``k`` nearest pages by
    embedding, ``k_lexical`` nearest by TF-IDF and the ``k_mention`` pages it names most
    convincingly (title, H1 or known anchor, by link probability); pages the source already
    links to in its content are skipped."""
    found = search(site, sources, ann, limits)
    return [
        gather(site, found, qi, named_targets(site, s, texts[s]) if s in texts else {}, ann, limits)
        for qi, s in enumerate(found.sources)
    ]


def gather(
    site: SiteContext,
    found: Searched,
    qi: int,
    named: dict[str, Mention],
    ann: AnnIndex,
    limits: CandidateLimits,
) -> Retrieved:
    """The candidate targets of the ``qi``-th source of a search, ``named``: the targets its
    text names (:func:`named_targets`)."""
    source = found.sources[qi]
    hits = found.hits(qi)
    neighbours = semantic_neighbours(site, source, ann, *hits, limits)
    for target in other_targets(site, source, found.lexical[qi], named, limits):
        if target not in neighbours:
            sim = float(found.query[qi] @ site.vectors[site.row_of[target]])
            neighbours[target] = sim
    linked = linked_neighbours(site, source, ann, hits, found.lexical[qi], named, limits)
    return Retrieved(source, neighbours, named, linked)


def linked_neighbours(
    site: SiteContext,
    source: str,
    ann: AnnIndex,
    hits: tuple[np.ndarray, np.ndarray],
    lexical_top: list[str],
    named: dict[str, Mention],
    limits: CandidateLimits | None = None,
) -> dict[str, float]:
    """The targets the source already links in content that its candidate search reached
    (embedding neighbours down to the last candidate, TF-IDF neighbours, names): target ->
    similarity. They are the site's labelled pairs, drawn from the same neighbourhood as the
    candidates (see :mod:`linkpipe.lib.links.weights`)."""
    limits = limits or CandidateLimits()
    linked = site.content_links.get(source, set())
    found: dict[str, float] = {}
    unlinked = 0
    for sim, idx in zip(*hits, strict=True):
        if idx < 0 or ann.urls[idx] == source or sim < limits.min_similarity:
            continue
        if ann.urls[idx] not in linked:
            unlinked += 1
            if unlinked >= limits.k:
                break
        elif ann.urls[idx] in site.row_of:
            found[ann.urls[idx]] = float(sim)
    names = [m.target for m in named.values() if m.probability >= MIN_MENTION_PROBABILITY]
    vector = site.vectors[site.row_of[source]]
    for target in [*lexical_top, *sorted(names)]:
        if target in linked and target != source and target not in found and target in site.row_of:
            found[target] = float(vector @ site.vectors[site.row_of[target]])
    return found


def semantic_neighbours(
    site: SiteContext,
    source: str,
    ann: AnnIndex,
    sims: np.ndarray,
    ids: np.ndarray,
    limits: CandidateLimits,
) -> dict[str, float]:
    """The source's embedding neighbours not linked yet: target -> similarity, best first."""
    linked = site.content_links.get(source, set())
    neighbours: dict[str, float] = {}
    for sim, idx in zip(sims, ids, strict=True):
        if idx < 0 or ann.urls[idx] == source:
            continue
        if sim >= limits.min_similarity and ann.urls[idx] not in linked:
            neighbours[ann.urls[idx]] = float(sim)
            if len(neighbours) >= limits.k:
                break
    return neighbours


def other_targets(
    site: SiteContext,
    source: str,
    lexical_top: list[str],
    named: dict[str, Mention],
    limits: CandidateLimits,
) -> list[str]:
    """TF-IDF neighbours, then the pages the source names most convincingly (not linked yet)."""
    linked = site.content_links.get(source, set())
    extra = [t for t in lexical_top if t != source and t not in linked][: limits.k_lexical]
    strong = [
        m
        for m in named.values()
        if m.probability >= MIN_MENTION_PROBABILITY and m.target not in linked
    ]
    strong.sort(key=lambda m: (-m.probability, m.target))
    return extra + [m.target for m in strong[: limits.k_mention]]
