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

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field, replace

import polars as pl

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
    key: str = ""  # the name's key: its stems joined by spaces (``site_names.name_key``)


@dataclass
class MentionCounts:
    """What some pages' main texts add to the name counts (see :meth:`MentionIndex.add`)."""

    mentioned_by: Counter[Key] = field(default_factory=Counter)
    linked_by: Counter[tuple[Key, str]] = field(default_factory=Counter)
    self_mentions: set[tuple[Key, str]] = field(default_factory=set)


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
        keys: Mapping[str, Sequence[Key]] | None = None,
    ) -> None:
        """``names``: url -> (phrase, kind); ``texts``: (url, stems of its main text), read
        once (a generator keeps one page in memory at a time); ``keys``: url -> the
        :func:`~linkpipe.lib.text.lexical.phrase_key` of each of its names, where known."""
        self.config = config or MentionConfig()
        self.targets: dict[Key, dict[str, tuple[str, str]]] = defaultdict(dict)
        self.lengths: dict[str, set[int]] = defaultdict(set)  # first stem -> key lengths
        self.openings: set[tuple[str, str]] = set()  # the first two stems of longer keys
        self.mentioned_by: dict[Key, int] = defaultdict(int)
        self.linked_by: dict[tuple[Key, str], int] = defaultdict(int)
        self.self_mentions: set[tuple[Key, str]] = set()
        # each name's mentions with their probabilities (:meth:`named_by`); emptied by counting
        self._named: dict[Key, list[tuple[float, Mention]]] = {}
        self._keys: dict[Key, Key] | None = None  # each key of :attr:`targets` to itself
        self.version = 0  # counts the changes of names and counts (see NameArrays)
        self._add_names(names, stop_stems, keys or {})
        for url, stems in texts:
            self.count_page(url, stems, content_links.get(url, set()))

    def _add_names(
        self,
        names: dict[str, Sequence[tuple[str, str]]],
        stop_stems: frozenset[str],
        keys: Mapping[str, Sequence[Key]],
    ) -> None:
        """Index every usable name; a name of more than ``max_targets`` pages is dropped."""
        for url, phrases in names.items():
            known = keys.get(url)
            for i, (phrase, kind) in enumerate(phrases):
                key = phrase_key(phrase) if known is None else known[i]
                if not key or len(key) > self.config.max_words:
                    continue
                if all(k in stop_stems or k.isdigit() for k in key):
                    continue
                self.targets[key].setdefault(url, (phrase, kind))
        for key in [k for k, t in self.targets.items() if len(t) > self.config.max_targets]:
            del self.targets[key]  # "Overview", "Introduction": a name of many pages names none
        for key in self.targets:
            self._index_key(key)

    def _index_key(self, key: Key) -> None:
        """Make ``key`` (a key of :attr:`targets`) findable by :meth:`keys_in`."""
        self._keys = None
        self.version += 1
        self.lengths[key[0]].add(len(key))
        if len(key) > 1:
            self.openings.add((key[0], key[1]))

    def counts_in(
        self, url: str, stems: Sequence[str], linked: set[str], into: MentionCounts
    ) -> None:
        """Count into ``into`` the names one page's main text mentions, and which it links."""
        for key in self.keys_in(stems):
            into.mentioned_by[key] += 1
            named = self.targets[key]
            if url in named:
                into.self_mentions.add((key, url))
            for target in named.keys() & linked:
                into.linked_by[(key, target)] += 1

    def add(self, counts: MentionCounts, sign: int = 1) -> None:
        """Add the counts of some pages (``sign`` -1: take back those of pages that changed
        or went, counted as their previous version was). Keys and URLs are stored as this
        index holds them (counts made in another process bring copies of every string)."""
        self._named.clear()
        self.version += 1
        for key, n in counts.mentioned_by.items():
            self.mentioned_by[self._key(key)] += sign * n
        for (key, target), n in counts.linked_by.items():
            self.linked_by[self._pair(key, target)] += sign * n
        found = {self._pair(key, url) for key, url in counts.self_mentions}
        if sign > 0:
            self.self_mentions |= found
        else:
            self.self_mentions -= found

    def _key(self, key: Key) -> Key:
        if self._keys is None:
            self._keys = {k: k for k in self.targets}
        return self._keys.get(key, key)

    def _pair(self, key: Key, url: str) -> tuple[Key, str]:
        key = self._key(key)
        named = self.targets.get(key, {})
        return key, next((u for u in named if u == url), url)

    def __getstate__(self) -> dict[str, object]:
        """What a worker process gets: the index without its caches."""
        return self.__dict__ | {"_named": {}, "_keys": None}

    def count_page(self, url: str, stems: Sequence[str], linked: set[str], sign: int = 1) -> None:
        """Count the names one page's main text mentions, and which of them it links (``sign``
        -1: take them back, see :meth:`add`)."""
        counts = MentionCounts()
        self.counts_in(url, stems, linked, counts)
        self.add(counts, sign)

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, config: MentionConfig | None = None) -> MentionIndex:
        """The index stored by :meth:`frame` (``site_names`` rows), without recounting."""
        index = cls({}, (), {}, config=config)
        columns = ("name_key", "target_url", "phrase", "kind", "mentioned_by", "linked_by")
        for name, url, phrase, kind, mentioned, linked, is_self in frame.select(
            *columns, "self_mention"
        ).iter_rows():
            key = tuple(name.split(" "))
            index.targets[key][url] = (phrase, kind)
            index._index_key(key)
            if mentioned:
                index.mentioned_by[key] = mentioned
            if linked:
                index.linked_by[(key, url)] = linked
            if is_self:
                index.self_mentions.add((key, url))
        index._named.clear()
        index.version += 1
        return index

    @classmethod
    def of_targets(
        cls, targets: Mapping[Key, Mapping[str, tuple[str, str]]], config: MentionConfig
    ) -> MentionIndex:
        """An index of the names ``targets`` (key -> target URL -> (phrase, kind)), not
        counted: what the names of a set of keys of another index are counted with."""
        index = cls({}, (), {}, config=config)
        for key, named in targets.items():
            index.targets[key] = dict(named)
            index._index_key(key)
        return index

    def only(self, keys: Set[Key]) -> MentionIndex:
        """This index's names of ``keys`` alone, not counted (:meth:`counts_in` with it counts
        what this index would count for those keys, and nothing else)."""
        kept = {key: named for key, named in self.targets.items() if key in keys}
        return MentionIndex.of_targets(kept, self.config)

    def carried_to(self, names: MentionIndex, recount: Set[Key]) -> MentionIndex:
        """``names`` (another crawl's names, not counted) with this index's counts of every key
        but ``recount`` (keys this index lacks or names other pages with: to count again)."""
        out = MentionIndex.of_targets(names.targets, names.config)
        for key, named in out.targets.items():
            if key in recount:
                continue
            if mentioned := self.mentioned_by.get(key, 0):
                out.mentioned_by[key] = mentioned
            for url in named:
                if linked := self.linked_by.get((key, url), 0):
                    out.linked_by[(key, url)] = linked
                if (key, url) in self.self_mentions:
                    out.self_mentions.add((key, url))
        return out

    def recount_for(self, names: MentionIndex) -> set[Key]:
        """The keys of ``names`` whose counts this index cannot give: keys it lacks, and keys
        that name other pages here (a target's links are counted by target)."""
        return {
            key
            for key, named in names.targets.items()
            if key not in self.targets or self.targets[key].keys() != named.keys()
        }

    def frame(self) -> pl.DataFrame:
        """One row per (name, target): the ``site_names`` columns (name key: its stems joined
        by spaces; mentioned_by counts every page whose main text has the name)."""
        rows = [
            (" ".join(key), url, phrase, kind, self.mentioned_by.get(key, 0),
             self.linked_by.get((key, url), 0), (key, url) in self.self_mentions)
            for key, named in self.targets.items()
            for url, (phrase, kind) in named.items()
        ]  # fmt: skip
        schema = {
            "name_key": pl.String,
            "target_url": pl.String,
            "phrase": pl.String,
            "kind": pl.String,
            "mentioned_by": pl.Int32,
            "linked_by": pl.Int32,
            "self_mention": pl.Boolean,
        }
        return pl.DataFrame(rows, schema=schema, orient="row")

    def keys_in(self, stems: Sequence[str]) -> set[Key]:
        """Every indexed name key that occurs in a stem sequence."""
        found: set[Key] = set()
        words, lengths, targets, openings = tuple(stems), self.lengths, self.targets, self.openings
        last = len(words) - 1
        for i, first in enumerate(words):
            sizes = lengths.get(first)
            if sizes is None:
                continue
            if 1 in sizes and (first,) in targets:
                found.add((first,))
            if i < last and (first, words[i + 1]) in openings:  # a longer name may start here
                for n in sizes:
                    key = words[i : i + n]
                    if n > 1 and len(key) == n and key in targets:
                        found.add(key)
        return found

    def probability(self, key: Key, target: str) -> tuple[float, int, int]:
        """(smoothed link probability, mentions, links) of one name of one target."""
        mentions = self.mentioned_by.get(key, 0) - ((key, target) in self.self_mentions)
        links = self.linked_by.get((key, target), 0)
        cfg = self.config
        prior = cfg.prior_single if len(key) == 1 else cfg.prior_multi
        return (links + cfg.strength * prior) / (mentions + cfg.strength), mentions, links

    def without_one_link(self, mention: Mention) -> Mention:
        """The mention as if one page that names and links its target did neither: the link
        probability a source that already links the target would have without its own link
        (so that linked pairs, used as labelled data, do not count themselves)."""
        if mention.links < 1 or mention.mentions < 1:
            return mention
        cfg = self.config
        prior = cfg.prior_single if len(phrase_key(mention.phrase)) == 1 else cfg.prior_multi
        links, mentions = mention.links - 1, mention.mentions - 1
        p = (links + cfg.strength * prior) / (mentions + cfg.strength)
        return replace(mention, probability=round(p, 6), mentions=mentions, links=links)

    def mentions_in(self, stems: Sequence[str], exclude: Iterable[str] = ()) -> dict[str, Mention]:
        """The best-evidenced mention of each target named in a source's stems; between names of
        equal probability the longest (then the first in order) wins, the same on every run."""
        return self.mentions_of(self.keys_in(stems), exclude)

    def mentions_of(self, keys: Iterable[Key], exclude: Iterable[str] = ()) -> dict[str, Mention]:
        """:meth:`mentions_in` for the name keys a source's stems hold (:meth:`keys_in`)."""
        skip = set(exclude)
        best: dict[str, Mention] = {}
        for key in sorted(keys, key=lambda k: (-len(k), k)):
            for _, mention in self.named_by(key):
                target = mention.target
                if target in skip:
                    continue
                if target not in best or mention.probability > best[target].probability:
                    best[target] = mention
        return best

    def named_by(self, key: Key) -> list[tuple[float, Mention]]:
        """(link probability, mention) of each target the name ``key`` names (the mention holds
        the probability rounded); kept until the next page is counted (a site's sources mention
        the same names over and over)."""
        found = self._named.get(key)
        if found is None:
            found = []
            for target, (phrase, kind) in self.targets[key].items():
                p, m, n = self.probability(key, target)
                found.append((p, Mention(target, phrase, kind, round(p, 6), m, n, " ".join(key))))
            self._named[key] = found
        return found
