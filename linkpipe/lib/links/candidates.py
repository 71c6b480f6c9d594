"""Candidate pairs for a shard of source pages: semantic neighbours plus lexical mentions,
joined with TF-IDF, link-graph evidence and the best anchor placement."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from linkpipe.lib.links.anchors import (
    STOP_STEMS,
    AnchorChoice,
    SourceText,
    TargetProfile,
    place_anchor,
    target_phrases,
)
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.semantic_anchors import WindowVectors, place_anchor_semantic
from linkpipe.lib.text.lexical import fit_tfidf, pair_cosines, phrase_key, top_terms
from linkpipe.lib.text.mentions import Mention, MentionIndex
from linkpipe.lib.vectors.ann import AnnIndex

MIN_MENTION_PROBABILITY = 0.05  # a mention below this does not make a pair a candidate
SINGLE_WORD_ANCHOR_PROBABILITY = 0.3  # a one-word name is an anchor when linked this often
MAX_KNOWN_ANCHORS = 50  # per target, most used first


@dataclass
class SitePage:
    """What candidate generation knows of one indexable page."""

    url: str
    title: str
    h1: str
    slug: str
    main_text: str  # where mentions of other pages are counted

    @property
    def text(self) -> str:
        """Title, H1 and main text: what TF-IDF compares."""
        return " ".join(filter(None, [self.title, self.h1, self.main_text]))


@dataclass
class SiteContext:
    """Site-level inputs shared by every shard: pages, vectors, TF-IDF and existing links."""

    pages: list[SitePage]
    vectors: np.ndarray
    content_links: dict[str, set[str]] = field(default_factory=dict)  # source -> targets
    nav_links: dict[str, set[str]] = field(default_factory=dict)
    known_anchors: dict[str, list[str]] = field(default_factory=dict)  # target -> anchors

    def __post_init__(self) -> None:
        self.row_of = {p.url: i for i, p in enumerate(self.pages)}
        self.vectorizer: TfidfVectorizer
        self.vectorizer, self.tfidf = fit_tfidf([p.text for p in self.pages])
        self.linked_from: dict[str, set[str]] = defaultdict(set)  # target -> sources (content)
        for src, targets in self.content_links.items():
            for t in targets:
                self.linked_from[t].add(src)
        self.mentions = MentionIndex(
            {p.url: self.names(p) for p in self.pages},
            ((p.url, phrase_key(p.main_text)) for p in self.pages),
            self.content_links,
            STOP_STEMS,
        )
        self._profiles: dict[str, TargetProfile] = {}

    def names(self, page: SitePage) -> list[tuple[str, str]]:
        """The phrases that name a page: title, H1 and the anchors other pages use for it."""
        anchors = self.known_anchors.get(page.url, [])[:MAX_KNOWN_ANCHORS]
        return target_phrases(page.title, page.h1, "", anchors)

    def profile(self, url: str) -> TargetProfile:
        """The target profile of a page (cached)."""
        if url not in self._profiles:
            page = self.pages[self.row_of[url]]
            row: sparse.csr_matrix = self.tfidf[self.row_of[url]]
            terms = top_terms(self.vectorizer, row, limit=40)
            for phrase, _ in target_phrases(page.title, page.h1, page.slug, []):
                for stem in phrase_key(phrase):
                    if stem not in STOP_STEMS:
                        terms[stem] = 1.0  # words of the target's own title weigh most
            phrases = self.names(page) + ([(page.slug, "slug")] if page.slug else [])
            single = frozenset(
                key
                for key in map(phrase_key, (p for p, _ in phrases))
                if len(key) == 1
                and self.mentions.probability(key, url)[0] >= SINGLE_WORD_ANCHOR_PROBABILITY
            )
            self._profiles[url] = TargetProfile(url, phrases, terms, single)
        return self._profiles[url]


def _place(
    site: SiteContext, src: SourceText | None, target: str, vecs: WindowVectors | None
) -> list[AnchorChoice]:
    """Anchor choices for one target in the source, best first (semantic with ``vecs``)."""
    if src is None:
        return []
    profile = site.profile(target)
    if vecs is None:
        return place_anchor(src, profile)
    return place_anchor_semantic(src, vecs, profile, site.vectors[site.row_of[target]])


def named_targets(site: SiteContext, source: str, src: SourceText) -> dict[str, Mention]:
    """Targets the source names (title, H1 or known anchor), with their link probability."""
    stems = [t[0] for t in src.tokens]
    return site.mentions.mentions_in(stems, exclude={source})


def tfidf_neighbours(site: SiteContext, sources: list[str], k: int) -> list[list[str]]:
    """For each source, the ``k`` pages with the highest TF-IDF cosine, best first."""
    rows = site.tfidf[[site.row_of[s] for s in sources]]
    sims = (rows @ site.tfidf.T).tocsr()
    out = []
    for i in range(len(sources)):
        row = sims.getrow(i)
        order = np.argsort(-row.data)[:k]
        out.append([site.pages[int(row.indices[j])].url for j in order])
    return out


def graph_signals(site: SiteContext, source: str, target: str) -> tuple[float, float]:
    """(co-citation, shared neighbours): pages linking to both, and Jaccard of out-links."""
    a, b = site.linked_from.get(source, set()), site.linked_from.get(target, set())
    cocited = len(a & b)
    cocitation = cocited / (cocited + 2.0)
    out_a = site.content_links.get(source, set()) - {target}
    out_b = site.content_links.get(target, set()) - {source}
    union = out_a | out_b
    return cocitation, (len(out_a & out_b) / len(union) if union else 0.0)


@dataclass(frozen=True, slots=True)
class CandidateLimits:
    """How many candidates of each kind a source gets."""

    k: int = 20  # nearest pages by embedding
    min_similarity: float = 0.2  # embedding neighbours below this are no candidates
    k_lexical: int = 10  # nearest pages by TF-IDF
    k_mention: int = 20  # pages the source names, by link probability


def build_candidates(
    site: SiteContext,
    sources: list[str],
    texts: dict[str, SourceText],
    ann: AnnIndex,
    k: int = 20,
    min_similarity: float = 0.2,
    sentence_vectors: dict[str, WindowVectors] | None = None,
    k_lexical: int = 10,
    k_mention: int = 20,
) -> list[CandidatePair]:
    """Candidate rows for the given source pages (each a ``candidate_pairs`` row).

    Candidates: the ``k`` nearest pages by embedding, the ``k_lexical`` nearest by TF-IDF and
    the ``k_mention`` pages the source names most convincingly (title, H1 or known anchor, by
    link probability); pages the source already links to in its content are skipped. With
    ``sentence_vectors`` anchors are placed semantically (see semantic_anchors), else
    lexically (see anchors)."""
    limits = CandidateLimits(k, min_similarity, k_lexical, k_mention)
    sources = [s for s in sources if s in site.row_of]
    if not sources:
        return []
    query = site.vectors[[site.row_of[s] for s in sources]]
    # Already-linked pages do not use up the k places: search deeper for pages that link a lot.
    most_linked = max(len(site.content_links.get(s, ())) for s in sources)
    sims, ids = ann.search(query, min(k + 1 + most_linked, k + 1 + 200))
    lexical_top = tfidf_neighbours(site, sources, k_lexical + 1 + most_linked)
    rows: list[CandidatePair] = []
    for qi, source in enumerate(sources):
        src_text = texts.get(source)
        named = named_targets(site, source, src_text) if src_text is not None else {}
        neighbours = semantic_neighbours(site, source, ann, sims[qi], ids[qi], limits)
        extra = other_targets(site, source, lexical_top[qi], named, limits)
        for target in extra:
            if target not in neighbours:
                sim = float(query[qi] @ site.vectors[site.row_of[target]])
                neighbours[target] = (0, sim)
        vecs = (sentence_vectors or {}).get(source)
        rows += pair_rows(site, source, neighbours, src_text, vecs, named)
    return rows


def semantic_neighbours(
    site: SiteContext,
    source: str,
    ann: AnnIndex,
    sims: np.ndarray,
    ids: np.ndarray,
    limits: CandidateLimits,
) -> dict[str, tuple[int, float]]:
    """The source's embedding neighbours not linked yet: target -> (rank, similarity).

    The rank counts every neighbour but the source itself, linked or not."""
    linked = site.content_links.get(source, set())
    neighbours: dict[str, tuple[int, float]] = {}
    rank = 0
    for sim, idx in zip(sims, ids, strict=True):
        if idx < 0 or ann.urls[idx] == source:
            continue
        rank += 1
        if sim >= limits.min_similarity and ann.urls[idx] not in linked:
            neighbours[ann.urls[idx]] = (rank, float(sim))
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


def pair_rows(
    site: SiteContext,
    source: str,
    neighbours: dict[str, tuple[int, float]],
    src_text: SourceText | None,
    vecs: WindowVectors | None,
    named: dict[str, Mention],
) -> list[CandidatePair]:
    """One row per target with its TF-IDF, mention and graph evidence and its anchors."""
    pairs = [(site.row_of[source], site.row_of[t]) for t in neighbours]
    lexical = pair_cosines(site.tfidf, pairs)
    rows = []
    for (target, (rank, sim)), lex in zip(neighbours.items(), lexical, strict=True):
        cocitation, shared = graph_signals(site, source, target)
        choices = _place(site, src_text, target, vecs)
        best = choices[0] if choices else None
        title_match = (
            best.quality if best and best.source_kind not in ("phrase", "semantic") else 0.0
        )
        mention = named.get(target)
        rows.append(
            CandidatePair(
                source_url=source,
                target_url=target,
                semantic_rank=rank or None,
                semantic_sim=round(sim, 6),
                lexical_sim=round(float(lex), 6),
                title_match=title_match,
                mention_score=mention.probability if mention else 0.0,
                mention_phrase=mention.phrase if mention else None,
                mention_pages=mention.mentions if mention else None,
                mention_links=mention.links if mention else None,
                cocitation=round(cocitation, 6),
                shared_neighbors=round(shared, 6),
                already_linked_content=target in site.content_links.get(source, set()),
                already_linked_nav=target in site.nav_links.get(source, set()),
                anchors=tuple(choices),
            )
        )
    return rows
