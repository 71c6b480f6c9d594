"""Mention evidence: how often the site's own pages link a target where they name it.

A phrase that names a page (its title, H1, or an anchor text other pages already use for it)
is evidence for a link only as far as the site's authors actually link it where it appears:
"GDAL" in a release note is linked to the GDAL install page most of the time, "reverse" almost
never to the URL resolver reference. This is the link probability ("keyphraseness") used to
decide what to link in wikification. For a phrase key ``k`` naming target ``t``::

    P(link | mention) = (L + strength * prior) / (M + strength)

with ``M`` the pages (``t`` itself left out) whose main text contains ``k``, ``L`` those of them
that link to ``t`` from their content, and a prior by phrase length (one word says less than
several) so that names nobody links yet still count a little.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from linkpipe.lib.text.lexical import phrase_key

Key = tuple[str, ...]


@dataclass(frozen=True)
class Mention:
    """The best evidence that a source names a target."""

    target: str
    phrase: str  # the naming phrase as the title, H1 or anchor spells it
    kind: str  # title | h1 | known_anchor
    probability: float  # smoothed P(link | mention), 0..1
    mentions: int  # other pages whose main text contains the phrase
    links: int  # of them, pages that link the target from their content


@dataclass(frozen=True)
class MentionConfig:
    """Priors and limits of the link-probability estimate."""

    prior_single: float = 0.1  # a one-word name nobody links yet
    prior_multi: float = 0.4  # a name of two words or more nobody links yet
    strength: float = 2.0  # weight of the prior, in pages
    max_words: int = 8
    max_targets: int = 10  # a name shared by more pages than this names none of them


class MentionIndex:
    """Link probability of every name of every page, counted over the whole site."""

    def __init__(
        self,
        names: dict[str, Sequence[tuple[str, str]]],
        texts: Iterable[tuple[str, Sequence[str]]],
        content_links: dict[str, set[str]],
        stop_stems: frozenset[str] = frozenset(),
        config: MentionConfig | None = None,
    ) -> None:
        """``names``: url -> (phrase, kind); ``texts``: (url, stems of its main text), read
        once (a generator keeps one page in memory at a time)."""
        self.config = config or MentionConfig()
        self.targets: dict[Key, dict[str, tuple[str, str]]] = defaultdict(dict)
        for url, phrases in names.items():
            for phrase, kind in phrases:
                key = phrase_key(phrase)
                if not key or len(key) > self.config.max_words:
                    continue
                if all(k in stop_stems or k.isdigit() for k in key):
                    continue
                self.targets[key].setdefault(url, (phrase, kind))
        for key in [k for k, t in self.targets.items() if len(t) > self.config.max_targets]:
            del self.targets[key]  # "Overview", "Introduction": a name of many pages names none
        self.lengths: dict[str, set[int]] = defaultdict(set)  # first stem -> key lengths
        for key in self.targets:
            self.lengths[key[0]].add(len(key))
        self.mentioned_by: dict[Key, int] = defaultdict(int)
        self.linked_by: dict[tuple[Key, str], int] = defaultdict(int)
        self.self_mentions: set[tuple[Key, str]] = set()
        for url, stems in texts:
            linked = content_links.get(url, set())
            for key in self.keys_in(stems):
                self.mentioned_by[key] += 1
                named = self.targets[key]
                if url in named:
                    self.self_mentions.add((key, url))
                for target in named.keys() & linked:
                    self.linked_by[(key, target)] += 1

    def keys_in(self, stems: Sequence[str]) -> set[Key]:
        """Every indexed name key that occurs in a stem sequence."""
        found: set[Key] = set()
        for i, first in enumerate(stems):
            for n in self.lengths.get(first, ()):
                key = tuple(stems[i : i + n])
                if len(key) == n and key in self.targets:
                    found.add(key)
        return found

    def probability(self, key: Key, target: str) -> tuple[float, int, int]:
        """(smoothed link probability, mentions, links) of one name of one target."""
        mentions = self.mentioned_by.get(key, 0) - ((key, target) in self.self_mentions)
        links = self.linked_by.get((key, target), 0)
        cfg = self.config
        prior = cfg.prior_single if len(key) == 1 else cfg.prior_multi
        return (links + cfg.strength * prior) / (mentions + cfg.strength), mentions, links

    def mentions_in(self, stems: Sequence[str], exclude: Iterable[str] = ()) -> dict[str, Mention]:
        """The best-evidenced mention of each target named in a source's stems; between names of
        equal probability the longest (then the first in order) wins, the same on every run."""
        skip = set(exclude)
        best: dict[str, Mention] = {}
        for key in sorted(self.keys_in(stems), key=lambda k: (-len(k), k)):
            for target, (phrase, kind) in self.targets[key].items():
                if target in skip:
                    continue
                p, m, n = self.probability(key, target)
                if target not in best or p > best[target].probability:
                    best[target] = Mention(target, phrase, kind, round(p, 6), m, n)
        return best
