"""A source's candidate rows kept from the previous crawl when its neighbourhood is unchanged.

Retrieval runs for every source of every crawl; its result *is* the source's candidate
neighbourhood: the targets found (with semantic rank and similarity), the names the source
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
crawl stored copies that crawl's rows; every other source is computed (its anchors still
reused pair by pair, see :mod:`anchor_reuse`). With TF-IDF statistics kept between crawls
(``site_models``) an unchanged page keeps its TF-IDF row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from linkpipe.lib.hashing import library_code_digest
from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.candidates import graph_signals
from linkpipe.lib.links.retrieval import Retrieved
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.text.mentions import Mention


class SourceReuse:
    """Row digests of this crawl's sources, and the previous crawl's by source."""

    def __init__(
        self, settings: str, pages: Mapping[str, str], previous: Mapping[str, str] | None = None
    ) -> None:
        """``settings``: the model, anchor mode, stage settings and site-wide facts (TF-IDF
        statistics, ubiquitous words), as one string; ``pages``: the digest of each page's
        stored facts (``select_page_fact_digests.sql``)."""
        self.salt = f"{library_code_digest()}|{settings}"
        self.pages = pages
        self.previous = dict(previous or {})
        self.digests: dict[str, str] = {}
        self.kept: list[str] = []  # sources whose previous rows are this crawl's
        self._targets: dict[str, bytes] = {}  # see :meth:`_target_facts`

    def split(
        self, site: SiteContext, found: list[Retrieved], texts: Mapping[str, SourceText]
    ) -> list[Retrieved]:
        """The retrieved sources whose rows must be computed; the others (row digest
        unchanged) are added to :attr:`kept`."""
        todo = []
        for item in found:
            self.digest(site, item, texts.get(item.source))
            if self.unchanged(item.source):
                self.kept.append(item.source)
            else:
                todo.append(item)
        return todo

    def digest(self, site: SiteContext, item: Retrieved, src: SourceText | None) -> str:
        """The row digest of a retrieved source (remembered in :attr:`digests`)."""
        h = hashlib.sha1(self.salt.encode())
        h.update(anchor_reuse.source_key(src).encode() if src is not None else b"no text")
        h.update(
            f"|{item.source}={self.pages.get(item.source, '')}".encode("utf-8", "surrogatepass")
        )
        for target, found in (*item.neighbours.items(), *item.linked.items()):
            h.update(self._target_facts(site, target))
            pair = (found, graph_signals(site, item.source, target), _name(item.named.get(target)))
            h.update(repr(pair).encode("utf-8", "surrogatepass"))
        self.digests[item.source] = h.hexdigest()[:32]
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

    def unchanged(self, source: str) -> bool:
        """Whether the source's row digest (see :meth:`digest`) is the previous crawl's."""
        digest = self.digests.get(source)
        return digest is not None and self.previous.get(source) == digest


def _name(mention: Mention | None) -> tuple[str, str, str] | None:
    """What a row keeps of a mention: the name found (its key, phrase and kind). Its counts and
    link probability are this crawl's, set by SQL on every row written (copied ones too)."""
    return (mention.key, mention.phrase, mention.kind) if mention is not None else None
