"""What the source gate reads of a searched source (see :mod:`source_gate`): its gate digest
with the URL and similarity of each embedding hit retrieval reads (:class:`GateRead`), how
deep retrieval reads the hits, and what it reads of the targets the source's text names
(looked up from the name keys its text holds, stored or found in its tokens)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from linkpipe.lib.links.anchor_reuse import source_key
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.kept_list import KeptList
from linkpipe.lib.links.retrieval import (
    MIN_MENTION_PROBABILITY,
    CandidateLimits,
    Searched,
)
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.text.mentions import Mention
from linkpipe.lib.text.name_arrays import NameArrays
from linkpipe.lib.vectors.ann import AnnIndex


@dataclass(frozen=True)
class GateRead:
    """What the gate reads of a searched source: its gate digest, and the URL ("" for none)
    and similarity (float32 bytes) of each embedding hit retrieval reads, and how many hits
    the search gave."""

    digest: str
    hits: tuple[str, ...]
    sims: bytes
    searched: int
    lexical: KeptList | None = None  # the TF-IDF list as the index found it
    text: str = ""  # the digest of the source's text under the gate's salt (code, settings)

    def moved(self, stored: bytes, urls: Sequence[str] | None = None) -> list[str]:
        """The hits whose similarity is not, to the bit, the one ``stored`` (the similarities
        of the same hits, stored with the same digest, best first: ``urls``, their pages,
        when a touched page may have moved among them; without them, compared by place)."""
        now, before = np.frombuffer(self.sims, np.uint32), np.frombuffer(stored, np.uint32)
        if len(now) != len(before):
            return list(self.hits)
        differ = np.flatnonzero(now != before).tolist()
        if not differ or urls is None or len(urls) != len(now):
            return [self.hits[i] for i in differ]
        was = dict(zip(urls, before.tolist(), strict=True))
        return [u for u, sim in zip(self.hits, now.tolist(), strict=True) if was.get(u) != sim]


def named_by_keys(site: SiteContext, source: str, keys: Iterable[str]) -> dict[str, Mention]:
    """The targets the source names (:func:`~retrieval.named_targets`), from the name keys its
    text holds as stored (:func:`name_keys`) instead of its tokens."""
    return site.mentions.mentions_of((tuple(k.split(" ")) for k in keys), exclude={source})


def name_keys(site: SiteContext, src: SourceText) -> list[str]:
    """The name keys the source's text holds, as stored (stems joined by spaces), sorted."""
    return sorted(" ".join(key) for key in site.mentions.keys_in(src.stems))


def gate_digest(
    salt: str,
    site: SiteContext,
    found: Searched,
    qi: int,
    src: SourceText,
    page: str,
    keys: Sequence[str],
    ann: AnnIndex,
    limits: CandidateLimits,
) -> GateRead:
    """The gate digest of the ``qi``-th source of a search with its hits' similarities (see
    :mod:`source_gate`), ``page``: the digest of its stored facts, ``keys``: the name keys its
    text holds (:func:`name_keys`)."""
    source = found.sources[qi]
    h = hashlib.sha1(f"{salt}|{source}={page}|{source_key(src)}".encode("utf-8", "surrogatepass"))
    all_sims, all_ids = found.hits(qi)
    depth = read_depth(site, source, ann, all_sims, all_ids, limits)
    urls = [ann.urls[i] if i >= 0 else "" for i in all_ids[:depth].tolist()]
    reach = (all_sims[:depth] >= limits.min_similarity).tolist()
    sims = all_sims[:depth].astype(np.float32)  # as searched (float32)
    hits = sorted((u, u in site.row_of, r) for u, r in zip(urls, reach, strict=True))
    linked = site.content_links.get(source, set())
    lexical = sorted(t for t in found.lexical[qi] if t in linked)  # the others: in names_read
    h.update(repr((hits, depth == len(all_ids), lexical)).encode())
    h.update(names_read(site, source, keys, found.lexical[qi], limits))
    lists = found.lists[qi] if found.lists else None
    text = hashlib.sha1(f"{salt}|{source_key(src)}".encode("utf-8", "surrogatepass"))
    read = (h.hexdigest()[:32], tuple(urls), sims.tobytes(), len(all_ids), lists)
    return GateRead(*read, text.hexdigest()[:32])


def read_depth(
    site: SiteContext,
    source: str,
    ann: AnnIndex,
    sims: np.ndarray,
    ids: np.ndarray,
    limits: CandidateLimits,
) -> int:
    """How many embedding hits retrieval reads: up to the ``k``-th not linked by the source
    with at least the minimum similarity (where :func:`~retrieval.semantic_neighbours` and
    :func:`~retrieval.linked_neighbours` stop), all of them when there are fewer."""
    linked = site.content_links.get(source, set())
    unlinked = 0
    for n, (sim, idx) in enumerate(zip(sims.tolist(), ids.tolist(), strict=True)):
        if idx < 0 or ann.urls[idx] == source or sim < limits.min_similarity:
            continue
        if ann.urls[idx] not in linked:
            unlinked += 1
            if unlinked >= limits.k:
                return n + 1
    return len(ids)


def names_read(
    site: SiteContext,
    source: str,
    keys: Iterable[str],
    lexical: list[str],
    limits: CandidateLimits,
) -> bytes:
    """What retrieval and the rows read of the names the source's text holds (``keys``, as
    :func:`name_keys` gives them), encoded for the gate digest: the best name of each target
    (key, phrase, kind), whether the target has a vector, whether it is strong enough to be
    found (in the targets' order), and the targets :func:`~retrieval.other_targets` adds (the
    first unlinked TF-IDF neighbours and the strongest names, as a set): the targets and names
    of :func:`named_by_keys`, picked on the name index's arrays (a source names ~130 targets;
    a target's part is encoded once per site context)."""
    names = site.name_arrays()
    best = names.best(keys, exclude=source)
    linked = site.content_links.get(source, set())
    extra = [t for t in lexical if t != source and t not in linked][: limits.k_lexical]
    strong = best[names.probability[best] >= MIN_MENTION_PROBABILITY]
    ranked = strong[np.argsort(-names.probability[strong], kind="stable")]  # then by URL
    found = (names.urls[names.targets[pair]] for pair in ranked.tolist())
    extra += itertools.islice((t for t in found if t not in linked), limits.k_mention)
    return _pair_parts(site, names, best).tobytes() + repr(sorted(extra)).encode()


def _pair_parts(site: SiteContext, names: NameArrays, pairs: np.ndarray) -> np.ndarray:
    """The parts of ``pairs`` in :func:`names_read`: the digest of each pair's target, name
    key, phrase and kind, whether the target has a vector and whether the name is strong
    enough to be found (16 bytes a pair; made once per site context, when first read)."""
    held = site.name_parts
    if len(held) != len(names.mentions):
        held = site.name_parts = np.zeros((len(names.mentions), PART_BYTES), dtype=np.uint8)
        site.name_parts_made = np.zeros(len(names.mentions), dtype=bool)
    for pair in pairs[~site.name_parts_made[pairs]].tolist():
        mention = names.mentions[pair]
        t, strong = mention.target, mention.probability >= MIN_MENTION_PROBABILITY
        text = repr((t, mention.key, mention.phrase, mention.kind, t in site.row_of, strong))
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()[:PART_BYTES]
        held[pair] = np.frombuffer(digest, dtype=np.uint8)
        site.name_parts_made[pair] = True
    parts: np.ndarray = held[pairs]
    return parts


PART_BYTES = 16
