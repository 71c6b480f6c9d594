"""A source's candidate rows kept from the previous crawl when its neighbourhood is unchanged.

Retrieval runs for every source of every crawl; its result *is* the source's candidate
neighbourhood: the targets found (with semantic rank and similarity), the names the source
mentions (with their link counts) and the linked targets found beside them. A source's
``candidate_pairs`` rows are a function of that result and of the pages it involves:

* the source's main text, sentences and existing-link spans;
* for the source and every page found, its stored facts (``select_page_fact_digests.sql``):
  names, TF-IDF row, embedding, the name-dictionary rows naming it (known anchors, link
  counts), every link from or to it (co-citation, shared neighbours, already linked);
* the site's TF-IDF statistics and ubiquitous words, the code of ``linkpipe.lib``, the model,
  the anchor mode and the stage's settings.

Their digest is the source's *row digest* (``candidate_sources``). A source whose row digest
equals the one the previous crawl stored copies that crawl's rows; every other source is
computed (its anchors still reused pair by pair, see :mod:`anchor_reuse`). A page's facts
change when it is edited, linked or unlinked, so an edit reaches the sources that find the
edited page, link it or are linked by it, and those whose retrieval it changed; with TF-IDF
statistics kept between crawls (``site_models``) the other sources' rows are copied.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from linkpipe.lib.hashing import library_code_digest
from linkpipe.lib.links import anchor_reuse
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.retrieval import Retrieved


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

    def split(self, found: list[Retrieved], texts: Mapping[str, SourceText]) -> list[Retrieved]:
        """The retrieved sources whose rows must be computed; the others (row digest
        unchanged) are added to :attr:`kept`."""
        todo = []
        for item in found:
            self.digest(item, texts.get(item.source))
            if self.unchanged(item.source):
                self.kept.append(item.source)
            else:
                todo.append(item)
        return todo

    def digest(self, item: Retrieved, src: SourceText | None) -> str:
        """The row digest of a retrieved source (remembered in :attr:`digests`)."""
        h = hashlib.sha1(self.salt.encode())
        h.update(anchor_reuse.source_key(src).encode() if src is not None else b"no text")
        found = (
            list(item.neighbours.items()),
            sorted(item.named.items()),
            list(item.linked.items()),
        )
        h.update(repr(found).encode("utf-8", "surrogatepass"))
        for url in (item.source, *item.neighbours, *item.linked):
            h.update(f"|{url}={self.pages.get(url, '')}".encode("utf-8", "surrogatepass"))
        self.digests[item.source] = h.hexdigest()[:32]
        return self.digests[item.source]

    def unchanged(self, source: str) -> bool:
        """Whether the source's row digest (see :meth:`digest`) is the previous crawl's."""
        digest = self.digests.get(source)
        return digest is not None and self.previous.get(source) == digest
