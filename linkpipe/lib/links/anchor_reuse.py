"""Anchor placements kept from the previous crawl when nothing they depend on changed.

Placing anchors is most of a candidate pair's cost (word vectors of the source, window scores,
phrase checks). The placements of a pair are a function of:

* the source's main text, its sentences and its existing-link spans;
* the target's profile (phrases and terms, see ``SiteContext.profile``) and vector; semantic
  placement reads which terms a target has, lexical placement also their TF-IDF weights, so
  only a lexical key holds the weights (a few edits move every weight of the site a little);
* the site's ubiquitous words (see :data:`~linkpipe.lib.links.anchors.UBIQUITOUS_DOC_SHARE`):
  a window of only such words is not placed, so their digest is part of every target's key
  (the set changes only when a word crosses half of the site's pages);
* the embedding model, whether placement is semantic or lexical, and the placing code.

Their digest is the pair's *anchor key*, stored with each ``candidate_pairs`` row. A source of
this crawl recomputes only the pairs whose key is not among the previous crawl's rows; a
source all of whose pairs are known is not even encoded.

The candidate step places a pair on its target's names only, and those placements read
nothing of the target but its name keys and their kinds (``TargetProfile.keys``): not its
vector, terms or the site's ubiquitous words. Their digest is the pair's *name key*
(:meth:`AnchorReuse.names_key`, stored as ``candidate_pairs.name_key``), which the candidate
step looks names-only placements up by: an edited page whose names stay (most edits) keeps
the name keys of every pair it is the target of, while its anchor keys change.

Everything else of a row (which targets are candidates, similarities, mentions, graph signals)
is recomputed every crawl, so a source's candidate neighbourhood may change freely: reuse
changes cost, never rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Set
from functools import cache
from importlib import resources

from linkpipe.lib.links.anchors import AnchorChoice, SourceText, TargetProfile
from linkpipe.lib.text.parsing import current_parser_identity

# Modules whose code decides placements: an edit to any of them changes every key.
_PLACING_MODULES = (
    (
        "linkpipe.lib.links",
        (
            "anchors.py",
            "name_anchors.py",
            "lexical_anchors.py",
            "semantic_anchors.py",
            "windows.py",
            "candidates.py",
            "placement.py",
            "site_context.py",
            "long_sources.py",
        ),
    ),
    (
        "linkpipe.lib.text",
        ("phrases.py", "parsing.py", "pos_rules.py", "lexical.py", "stopwords.py"),
    ),
)


@cache
def placing_code_digest() -> str:
    """sha1 of the source files of the placing code (read once per process)."""
    digest = hashlib.sha1()
    for package, names in _PLACING_MODULES:
        for name in names:
            path = resources.files(package) / name
            if path.is_file():
                digest.update(path.read_bytes())
    return digest.hexdigest()


def source_key(src: SourceText) -> str:
    """Digest of what a source contributes to its placements (:attr:`SourceText.digest`)."""
    return src.digest


def stems_digest(stems: Set[str]) -> str:
    """Digest of a set of stems (the site's ubiquitous words), whatever their order."""
    return hashlib.sha1("\n".join(sorted(stems)).encode("utf-8", "surrogatepass")).hexdigest()


def names_digest(keys: Mapping[tuple[str, ...], str]) -> str:
    """Digest of a target's name keys and their kinds (``TargetProfile.keys``): all that
    placing a pair on names reads of its target."""
    return hashlib.sha1(repr(sorted(keys.items())).encode("utf-8", "surrogatepass")).hexdigest()


def target_key(
    profile: TargetProfile, vector_bytes: bytes, weighted: bool = True, site_words: str = ""
) -> str:
    """Digest of what a target contributes to its placements. Semantic placement reads only
    which terms a target has, not their weights (``weighted=False``): a small edit elsewhere
    moves every TF-IDF weight a little, and would otherwise change every key of the site.
    ``site_words``: the :func:`stems_digest` of the site's ubiquitous stems, which decide
    which windows may be placed for any target."""
    terms = sorted(profile.terms.items()) if weighted else sorted(profile.terms)
    single = sorted(profile.single_words)
    digest = hashlib.sha1(repr((profile.url, profile.phrases, terms, single)).encode())
    digest.update(vector_bytes)
    digest.update(f"|ubiquitous:{site_words}".encode())
    return digest.hexdigest()


class AnchorReuse:
    """Pair keys of this crawl and the placements of the previous crawl's rows by key."""

    def __init__(
        self,
        model: str,
        semantic: bool,
        known: Mapping[str, tuple[AnchorChoice, ...]] | None = None,
        names: bool = False,
    ) -> None:
        """``model``: the embedding model; ``semantic``: placement is semantic, not lexical;
        ``names``: ``known`` holds names-only placements by name key (:meth:`names_key`)."""
        self.semantic = semantic
        self.names = names
        kind = "semantic" if semantic else "lexical"
        # the parser judges which anchors are well formed: another spaCy or pipeline version
        # places differently, so its identity is part of every key
        code = f"{placing_code_digest()}|{current_parser_identity()}"
        self.salt = f"{code}|{model}|{kind}"
        self.names_salt = f"{code}|names"
        self.known = known if known is not None else {}  # read, never copied (decoded lazily)
        self.reused = 0

    def key(self, source: str, target: str) -> str:
        """The anchor key of a pair, from its source and target digests."""
        return hashlib.sha1(f"{self.salt}|{source}|{target}".encode()).hexdigest()[:32]

    def names_key(self, source: str, names: str) -> str:
        """The name key of a pair, from its source digest and its target's
        :func:`names_digest`."""
        return hashlib.sha1(f"{self.names_salt}|{source}|{names}".encode()).hexdigest()[:32]

    def covers(self, keys: Iterable[str | None]) -> bool:
        """Whether every one of the pair keys has known placements (None: no key, unknown)."""
        return self.unknown(keys) == 0

    def unknown(self, keys: Iterable[str | None]) -> int:
        """How many of the pair keys have no known placements (None counts as unknown)."""
        return sum(k is None or k not in self.known for k in keys)

    def take(self, key: str) -> tuple[AnchorChoice, ...] | None:
        """The known placements of a pair key (counted as reused), None when unknown."""
        found = self.known.get(key)
        if found is not None:
            self.reused += 1
        return found
