"""Sources no change can reach: their rows are copied before anything else is done for them.

A source's row digest (:mod:`source_reuse`) needs its retrieval done, its text tokenised and
every pair's facts read. Most sources of a nightly refresh are copied all the same, so the
shard first asks, right after the batch's index search, whether anything the digest reads
can differ from the previous crawl's. The search itself is skipped for the sources no change
can reach: their embedding hits and TF-IDF neighbours are the ones stored with their gate
digest (:mod:`kept_hits`, :mod:`kept_lexical`: what the indexes would find again). A source
is *quiet* when:

* its *gate digest* is the one the previous crawl stored: the row digest's salt (code,
  model, settings, TF-IDF statistics, ubiquitous words) with its text, its page facts, the
  embedding hits retrieval reads (up to the k-th unlinked one, with whether each is a page
  of the site and reaches the minimum similarity; all of them when there are fewer), the
  TF-IDF neighbours it links and what the name index and the other TF-IDF neighbours add
  (the best name of each target its text names, which targets have a vector, the first
  unlinked TF-IDF neighbours and the strongest names): what retrieval reads of the TF-IDF
  neighbours, so that an edited page moving among a source's unread ones does not stop the
  source. The hits, the linked TF-IDF neighbours and the targets added are digested as
  sets: what retrieval takes from them does not hang on their order once the set read is
  the same (it reads up to the k-th unlinked hit and the first unlinked TF-IDF neighbours),
  and no row holds a target's place among them. The names are looked up from the name keys
  stored with the source (those its text held as the previous crawl's names went), so its
  text is not tokenised: when the site's names changed, the keys gone are dropped from
  them, and only the sources that may hold an added key (their TF-IDF rows weigh its words,
  :class:`NameChanges`) are tokenised. Those keys are the text's as this crawl's names go
  whenever the text is the stored one, which the digest tells. A source whose gate digest is
  the stored one keeps those keys when the gate stops it for one of the reasons below; a
  quiet source whose keys changed stores them again;
* the similarity of each hit read is the stored one, but for touched pages (below): the
  similarities are stored beside the digest (:class:`GateRead`), not in it, best first, and
  compared page by page (the stored hits' URLs, :class:`~kept_hits.StoredHitUrls`) when a
  touched page moved among them. A hit's similarity is read by its own pair only (which
  hits are read or become pairs hangs on the thresholds, in the digest), so an edited page
  found by many sources, or moving among their hits, recomputes their pairs with it, not
  the sources;
* none of the targets of its previous rows is *touched* (:class:`SiteChanges`): a page whose
  stored facts changed, came or went, a page whose incoming links or their anchors changed
  (its co-citation and known anchors), a page for which a one-word name of its own became or
  stopped being an anchor (its profile's one-word names);
* no page's links to the source itself changed (its co-citation with every target).

Then its retrieval gives what it gave and every pair reads the same facts: its row digest is
the previous crawl's, and its rows (and stored digests) are copied. A source that meets every
condition but the third (it has touched targets) is gated pair by pair: its retrieval
gives what it gave, and each pair with an untouched target reads what it read, so that
pair's stored digest is this crawl's (its row is copied, its anchor key and digest are not
computed); only the pairs with touched targets are. Every other source goes the whole way.
Tested to give the rows of a recomputation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from typing import NamedTuple

from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.gate_reads import GateRead, gate_digest, name_keys, named_by_keys
from linkpipe.lib.links.kept_hits import Hits
from linkpipe.lib.links.kept_list import KeptList
from linkpipe.lib.links.retrieval import (
    CandidateLimits,
    Retrieved,
    Searched,
    gather,
    search,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.text.mentions import Mention
from linkpipe.lib.vectors.ann import AnnIndex


@dataclass(frozen=True)
class SiteChanges:
    """What changed in the site since the previous crawl, as the gate reads it: the pages
    whose pairs must be recomputed as targets (``touched``) and those whose incoming links or
    their anchors changed (``relinked``: a source among them is recomputed)."""

    touched: Set[str]
    relinked: Set[str]


class Computed(NamedTuple):
    """What a shard stores of a source it retrieved, for the next crawl's gate (its
    ``candidate_sources`` columns)."""

    gate_digest: str
    name_keys: list[str]
    gate_sims: bytes
    gate_hits: list[str]
    hits_searched: int
    search_salt: str
    lexical_hits: list[str] | None
    lexical_cut: float | None
    lexical_floor: float | None
    lexical_cut_high: float | None
    lexical_nexts: list[str] | None
    lexical_next_partials: list[float] | None
    lexical_runner: str | None
    lexical_runner_cosine: float | None
    text_digest: str  # the text (and code, settings) the name keys were looked up in


@dataclass(frozen=True)
class NameChanges:
    """The site's name keys since the previous crawl (stems joined by spaces): ``added``,
    ``removed``, and ``reach``: the sources that may hold an added key (found by their TF-IDF
    rows, :mod:`~linkpipe.lib.text.key_pages`; a source not in it holds none)."""

    added: frozenset[str] = frozenset()
    removed: frozenset[str] = frozenset()
    reach: frozenset[str] = frozenset()


NO_NAME_CHANGES = NameChanges()


@dataclass
class SourceGate:
    """The previous crawl's gate digests, name keys and targets by source, and the site's
    changes since then; ``open`` is False when the gate cannot vouch (no previous crawl)."""

    salt: str
    changes: SiteChanges
    limits: CandidateLimits
    digests: Mapping[str, str] = field(default_factory=dict)
    keys: Mapping[str, list[str]] = field(default_factory=dict)
    targets: Mapping[str, Set[str]] = field(default_factory=dict)
    sims: Mapping[str, bytes] = field(default_factory=dict)  # source -> its hits' similarities
    texts: Mapping[str, str] = field(default_factory=dict)  # source -> text its keys are of
    open: bool = True
    names: NameChanges = NO_NAME_CHANGES
    quiet: list[str] = field(default_factory=list)  # sources let through so far
    computed: dict[str, Computed] = field(default_factory=dict)  # the others'
    touched: dict[str, frozenset[str]] = field(default_factory=dict)  # see :meth:`passes`
    rekeyed: dict[str, Computed] = field(default_factory=dict)  # see :meth:`known_keys`
    search_salt: str = ""  # the index searched (:func:`~kept_hits.search_salt`)
    kept_hits: Mapping[str, Hits] = field(default_factory=dict)  # hits taken, not searched
    kept_lists: Mapping[str, KeptList] = field(default_factory=dict)  # TF-IDF lists taken
    searched: dict[str, Computed] = field(default_factory=dict)  # see :meth:`searched_again`
    hit_urls: Mapping[str, Sequence[str]] = field(default_factory=dict)  # see :meth:`passes`

    def searched_again(self, source: str, read: GateRead, keys: list[str]) -> None:
        """Remember what to store of a quiet source whose indexes were searched, not kept:
        its rows are copied, but its stored searches are written again (what it read is
        the stored, but a touched page's similarity, the TF-IDF neighbours it does not read,
        the cut and the floor may be this crawl's; the next crawl keeps them from this
        crawl, :mod:`kept_hits`, :mod:`kept_lexical`); so is one whose TF-IDF list was kept
        otherwise than stored (patched, its cut moved, its next page no longer known)."""
        listed = self.kept_lists.get(source)
        if source not in self.kept_hits or listed is None or not listed.as_stored:
            self.searched[source] = self.stored(read, keys)

    def stored(self, read: GateRead, keys: list[str]) -> Computed:
        """What the shard stores of a source the gate read as ``read``, its text holding
        the name ``keys``."""
        searched = (read.digest, keys, read.sims, list(read.hits), read.searched)
        found = read.lexical
        if found is None:
            return Computed(*searched, self.search_salt, *(None,) * 8, read.text)
        return Computed(
            *searched,
            self.search_salt,
            list(found.urls),
            found.cut,
            found.floor,
            found.cut_high,
            list(found.next_urls),
            list(found.next_partials),
            found.runner_url,
            found.runner_cosine,
            read.text,
        )

    def known_keys(self, source: str, site: SiteContext, src: SourceText) -> list[str] | None:
        """The name keys the source's text holds as this crawl's names go, if its text is the
        one its keys were stored for (the gate digest or the stored text digest tells: see
        :func:`_through_gate`): those stored less the names gone, or (when it may hold an
        added name, see :class:`NameChanges`) looked up from its words; None when none are
        stored. A quiet source whose keys are not those stored goes to :attr:`rekeyed`
        (:func:`retrieve_ungated`: its stored row is written again)."""
        stored = self.keys.get(source) if self.open else None
        if stored is None:
            return None
        if source in self.names.reach:
            return name_keys(site, src)
        if not self.names.removed:
            return stored
        return [k for k in stored if k not in self.names.removed]

    def passes(self, source: str, read: GateRead) -> bool:
        """Whether the source is quiet (see the module): remembered in :attr:`quiet`. A
        source stopped for touched targets alone has them in :attr:`touched`: its pairs
        with the others read what they read before."""
        if not self.open or self.digests.get(source) != read.digest:
            return False
        stored = self.sims.get(source)
        urls = self.hit_urls.get(source)
        if stored is None or not set(read.moved(stored, urls)) <= self.changes.touched:
            return False
        if source in self.changes.relinked:
            return False
        touched = self.targets.get(source, set()) & self.changes.touched
        if touched:
            self.touched[source] = frozenset(touched)
            return False
        self.quiet.append(source)
        return True


def retrieve_ungated(
    site: SiteContext,
    sources: list[str],
    texts: Mapping[str, SourceText],
    ann: AnnIndex,
    limits: CandidateLimits,
    gate: SourceGate,
    pages: Mapping[str, str],
) -> list[Retrieved]:
    """:func:`~retrieval.retrieve` for the sources ``gate`` does not find quiet (those it does
    are in ``gate.quiet``), one batch; the gate digest and name keys of each source retrieved
    go to ``gate.computed``. ``pages``: the digest of each page's stored facts."""
    found = search(site, sources, ann, limits, gate.kept_hits, gate.kept_lists)
    out = []
    for qi, source in enumerate(found.sources):
        src = texts.get(source)
        if src is None:
            out.append(gather(site, found, qi, {}, ann, limits))
            continue
        through = _through_gate(gate, site, found, qi, src, pages, ann)
        if through is None:
            continue
        keys, named, read = through
        gate.computed[source] = gate.stored(read, keys)
        out.append(gather(site, found, qi, named, ann, limits))
    return out


def _through_gate(
    gate: SourceGate,
    site: SiteContext,
    found: Searched,
    qi: int,
    src: SourceText,
    pages: Mapping[str, str],
    ann: AnnIndex,
) -> tuple[list[str], dict[str, Mention], GateRead] | None:
    """None when the ``qi``-th source of the search is quiet (then in ``gate.quiet``); else
    the name keys its text holds, the targets they name and what the gate read of it."""
    source = found.sources[qi]
    page = pages.get(source, "")

    def read_of(keys: list[str]) -> GateRead:
        return gate_digest(gate.salt, site, found, qi, src, page, keys, ann, gate.limits)

    known = gate.known_keys(source, site, src)
    if known is not None:
        read = read_of(known)
        if gate.passes(source, read):
            if known != gate.keys.get(source):
                gate.rekeyed[source] = gate.stored(read, known)
            else:
                gate.searched_again(source, read, known)
            return None
        # the text its keys were stored for; a source in the reach of added names had its
        # keys looked up from its text already, and one whose text is the one they were
        # looked up in holds them (less names gone)
        if (
            gate.digests.get(source) == read.digest
            or source in gate.names.reach
            or gate.texts.get(source) == read.text
        ):
            return known, named_by_keys(site, source, known), read
    keys = name_keys(site, src)
    if keys != known:  # the names looked up and digested above are not its text's
        read = read_of(keys)
    return keys, named_by_keys(site, source, keys), read
