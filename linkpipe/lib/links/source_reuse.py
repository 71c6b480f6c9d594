"""A source's candidate rows kept from the previous crawl when its neighbourhood is unchanged.

Retrieval runs for every source of every crawl; its result *is* the source's candidate
neighbourhood: the targets found (with their similarity), the names the source
mentions (with their link counts) and the linked targets found beside them. A source's
``candidate_pairs`` rows are a function of that result and of the pages it involves:

* the source's main text, sentences and existing-link spans;
* for the source and every page found, its stored facts (``select_page_fact_digests.sql``:
  names, TF-IDF row, embedding, every link from it);
* for every page found, its target profile with its vector and the site's ubiquitous words
  (its target key, see :mod:`anchor_reuse`: titles, headings, known anchors, top terms,
  one-word names linked often enough), the pair's co-citation and shared neighbours, and the
  name of it that retrieval found (key, phrase, kind; its counts and link probability are not
  part of it: every row written, copied or computed, gets this crawl's counts of its name
  from ``site_names`` by SQL, ``update_candidate_mentions.sql``);
* the site's TF-IDF statistics, the code of ``linkpipe.lib``, the model, the anchor mode and
  the stage's settings.

Their digest is the source's *row digest* (``candidate_sources``). It holds the values a row
reads rather than everything they come from: a link added elsewhere changes a pair's
co-citation only when the linking page links both, and a name counted on one more page
changes no row's digest (it changes the row's counts, which the write sets). Retrieval's
choice of names does read the counts (the strongest names by link probability become
candidates), and what it chose is part of the digest. A source whose row digest equals the one the previous
crawl stored copies that crawl's rows. The row digest is made of one *pair digest* per row
(the source's part and the target's, stored as ``candidate_pairs.pair_digest``): a source
whose row digest changed copies the previous crawl's rows of the pairs whose pair digest it
stored (a row reads nothing of the source's other pairs), and only the others are computed
(their anchors still reused pair by pair, see :mod:`anchor_reuse`). With TF-IDF statistics
kept between crawls (``site_models``) an unchanged page keeps its TF-IDF row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Set

from linkpipe.lib.hashing import library_code_digest
from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.candidates import graph_signals
from linkpipe.lib.links.retrieval import Retrieved
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.text.mentions import Mention


class SourceReuse:
    """Row and pair digests of this crawl's sources, and the previous crawl's."""

    def __init__(
        self,
        settings: str,
        pages: Mapping[str, str],
        previous: Mapping[str, str] | None = None,
        previous_pairs: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """``settings``: the model, anchor mode, stage settings and site-wide facts (TF-IDF
        statistics, ubiquitous words), as one string; ``pages``: the digest of each page's
        stored facts (``select_page_fact_digests.sql``); ``previous``: the previous crawl's row
        digest of each source, ``previous_pairs``: its pair digest of each source's targets."""
        self.salt = f"{library_code_digest()}|{settings}"
        self.pages = pages
        self.previous = dict(previous or {})
        self.previous_pairs = previous_pairs or {}
        self.digests: dict[str, str] = {}
        self.pairs: dict[str, dict[str, str]] = {}  # source -> target -> pair digest
        self.kept: list[str] = []  # sources whose previous rows are this crawl's
        self.kept_pairs: list[str] = []  # pair digests of the computed sources' copied rows
        self._targets: dict[str, bytes] = {}  # see :meth:`_target_facts`

    def split(
        self,
        site: SiteContext,
        found: list[Retrieved],
        texts: Mapping[str, SourceText],
        touched: Mapping[str, Set[str]] | None = None,
    ) -> list[Retrieved]:
        """The retrieved sources whose rows must be computed; the others (row digest
        unchanged) are added to :attr:`kept`. ``touched``: for the sources that
        :class:`~linkpipe.lib.links.source_gate.SourceGate` stopped for touched targets
        alone, those targets: their other pairs keep the previous crawl's pair digests."""
        todo = []
        for item in found:
            targets = touched.get(item.source) if touched is not None else None
            known = None if targets is None else self._untouched(item.source, targets)
            self.digest(site, item, texts.get(item.source), known)
            if self.unchanged(item.source):
                self.kept.append(item.source)
            else:
                todo.append(item)
        return todo

    def copied_targets(self, source: str) -> frozenset[str]:
        """The targets of a computed source whose pair digest the previous crawl stored for
        it: their rows are copied (their digests added to :attr:`kept_pairs`)."""
        before = self.previous_pairs.get(source)
        if not before:
            return frozenset()
        same = {t: d for t, d in self.pairs.get(source, {}).items() if before.get(t) == d}
        self.kept_pairs.extend(same.values())
        return frozenset(same)

    def _untouched(self, source: str, touched: Set[str]) -> dict[str, str]:
        """The previous crawl's pair digests of the source's targets but ``touched``."""
        before = self.previous_pairs.get(source, {})
        return {t: d for t, d in before.items() if t not in touched}

    def digest(
        self,
        site: SiteContext,
        item: Retrieved,
        src: SourceText | None,
        known: Mapping[str, str] | None = None,
    ) -> str:
        """The row digest of a retrieved source (remembered in :attr:`digests`), made of the
        digest of each of its pairs (remembered in :attr:`pairs`); ``known``: pair digests
        that are this crawl's as they stand (the gate vouches that nothing they read
        changed), not computed again."""
        head = hashlib.sha1(self.salt.encode())
        head.update(anchor_reuse.source_key(src).encode() if src is not None else b"no text")
        head.update(
            f"|{item.source}={self.pages.get(item.source, '')}".encode("utf-8", "surrogatepass")
        )
        pairs: dict[str, str] = {}
        for kind, found_in in (("candidate", item.neighbours), ("linked", item.linked)):
            for target, sim in found_in.items():
                if known is not None and target in known:
                    pairs[target] = known[target]
                    continue
                h = head.copy()
                h.update(self._target_facts(site, target))
                signals = graph_signals(site, item.source, target)
                pair = (kind, sim, signals, _name(item.named.get(target)))
                h.update(repr(pair).encode("utf-8", "surrogatepass"))
                pairs[target] = h.hexdigest()[:32]
        whole = head.copy()
        for target in sorted(pairs):  # the rows, not the order in which they were found
            whole.update(pairs[target].encode())
        self.pairs[item.source] = pairs
        self.digests[item.source] = whole.hexdigest()[:32]
        return self.digests[item.source]

    def _target_facts(self, site: SiteContext, target: str) -> bytes:
        """What a target adds to the digest of every source that found it (its URL, stored
        facts and target key), encoded once."""
        facts = self._targets.get(target)
        if facts is None:
            value = (target, self.pages.get(target, ""), site.target_key(target, False))
            facts = repr(value).encode("utf-8", "surrogatepass")
            self._targets[target] = facts
        return facts

    def forget_pairs(self, sources: list[str]) -> None:
        """Drop the pair digests of sources whose rows are made (a shard's run of 25,000
        sources held ~130 MB of them at 100k pages); their row digests stay for the write."""
        for source in sources:
            self.pairs.pop(source, None)

    def unchanged(self, source: str) -> bool:
        """Whether the source's row digest (see :meth:`digest`) is the previous crawl's."""
        digest = self.digests.get(source)
        return digest is not None and self.previous.get(source) == digest


def _name(mention: Mention | None) -> tuple[str, str, str] | None:
    """What a row keeps of a mention: the name found (its key, phrase and kind). Its counts and
    link probability are this crawl's, set by SQL on every row written (copied ones too)."""
    return (mention.key, mention.phrase, mention.kind) if mention is not None else None
