"""The site as every candidate shard sees it: pages, vectors, existing links and the site
models, with each target's profile and anchor key (cached)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchors import (
    STOP_STEMS,
    UBIQUITOUS_DOC_SHARE,
    UBIQUITOUS_MIN_PAGES,
    TargetProfile,
    target_phrases,
)
from linkpipe.lib.links.edge_set import EdgeSet
from linkpipe.lib.links.site_models import SiteModels, SitePage, build_site_models, page_names
from linkpipe.lib.text.lexical import phrase_key
from linkpipe.lib.text.name_arrays import NameArrays
from linkpipe.lib.text.tfidf import row_cosines

SINGLE_WORD_ANCHOR_PROBABILITY = 0.3  # a one-word name is an anchor when linked this often
PROFILE_TERMS = 40  # weighted terms of a target profile


@dataclass
class SiteContext:
    """Site-level inputs shared by every shard: pages, vectors, existing links and the site
    models (TF-IDF, lexical index, name dictionary). Without ``prebuilt`` models they are built
    here from the pages' main texts (small sites, tests); shards read the stored ones.
    ``ubiquitous``: the stems at least half of the site's pages use (see
    :data:`~linkpipe.lib.links.anchors.UBIQUITOUS_DOC_SHARE`), found once per site."""

    pages: list[SitePage]
    vectors: np.ndarray
    content_links: dict[str, set[str]] = field(default_factory=dict)  # source -> targets
    nav_links: EdgeSet = field(default_factory=EdgeSet)
    known_anchors: dict[str, list[str]] = field(default_factory=dict)  # target -> anchors
    prebuilt: SiteModels | None = None

    def __post_init__(self) -> None:
        self.row_of = {p.url: i for i, p in enumerate(self.pages)}
        self.models = self.prebuilt or build_site_models(
            self.pages, self.pages, self.content_links, self.known_anchors
        )
        self.mentions = self.models.mentions
        self.ubiquitous = self.models.tfidf.stems_in_share(
            UBIQUITOUS_DOC_SHARE, UBIQUITOUS_MIN_PAGES
        )
        self.ubiquitous_digest = anchor_reuse.stems_digest(self.ubiquitous)
        self.linked_from: dict[str, set[str]] = defaultdict(set)  # target -> sources (content)
        for src, targets in self.content_links.items():
            for t in targets:
                self.linked_from[t].add(src)
        self._profiles: dict[str, TargetProfile] = {}
        self._target_keys: dict[tuple[str, bool], str] = {}
        self._names_digests: dict[str, str] = {}
        self._name_arrays: NameArrays | None = None
        # each name pair's part of a gate digest and whether it is made yet, by pair (see
        # gate_reads.names_read)
        self.name_parts = np.zeros((0, 0), dtype=np.uint8)
        self.name_parts_made = np.zeros(0, dtype=bool)

    def name_arrays(self) -> NameArrays:
        """The name index's pairs as arrays, made again when its counts changed (the
        parts of :attr:`name_parts` with them)."""
        if self._name_arrays is None or self._name_arrays.version != self.mentions.version:
            self._name_arrays = NameArrays.of(self.mentions)
            self.name_parts = np.zeros((0, 0), dtype=np.uint8)
        return self._name_arrays

    def names(self, page: SitePage) -> list[tuple[str, str]]:
        """The phrases that name a page: title, H1 and the anchors other pages use for it."""
        return page_names(page, self.known_anchors)

    def profile(self, url: str) -> TargetProfile:
        """The target profile of a page (cached)."""
        if url not in self._profiles:
            page = self.pages[self.row_of[url]]
            row = self.models.tfidf.row_of.get(url)
            terms = {} if row is None else self.models.tfidf.top_terms(row, PROFILE_TERMS)
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

    def target_key(self, url: str, weighted: bool = True) -> str:
        """Digest of the target's profile and vector and of the site's ubiquitous stems (see
        :mod:`anchor_reuse`; cached)."""
        if (url, weighted) not in self._target_keys:
            vector = self.vectors[self.row_of[url]].tobytes()
            profile = self.profile(url)
            key = anchor_reuse.target_key(profile, vector, weighted, self.ubiquitous_digest)
            self._target_keys[(url, weighted)] = key
        return self._target_keys[(url, weighted)]

    def names_digest(self, url: str) -> str:
        """Digest of the target's name keys and their kinds (see :mod:`anchor_reuse`;
        cached)."""
        if url not in self._names_digests:
            self._names_digests[url] = anchor_reuse.names_digest(self.profile(url).keys)
        return self._names_digests[url]

    def lexical_sims(self, source: str, targets: list[str]) -> np.ndarray:
        """TF-IDF cosine of the source with each target (0 for a page without a row)."""
        rows = self.models.tfidf.row_of
        if source not in rows:
            return np.zeros(len(targets))
        found = [rows[t] for t in targets if t in rows]
        sims = iter(row_cosines(self.models.tfidf.matrix, rows[source], found).tolist())
        return np.array([next(sims) if t in rows else 0.0 for t in targets])
