"""The stored parses a candidate shard reads before placing pairs on names, and stores after
(see :mod:`~linkpipe.lib.stages.parse_cache`): only the sentences holding a name of a target
whose pair is placed that placing on names judges (a one-word name, or a link near the name:
see :mod:`~linkpipe.lib.links.name_anchors`), a long source's part by part."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set
from contextlib import contextmanager

from linkpipe.lib.links.anchor_reuse import AnchorReuse
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.long_sources import is_long
from linkpipe.lib.links.name_anchors import judged, name_hits
from linkpipe.lib.links.placement import PartParses, Plan
from linkpipe.lib.links.retrieval import Retrieved
from linkpipe.lib.links.site_context import SiteContext
from linkpipe.lib.stages.parse_cache import ParseCache


def load_name_parses(
    parses: ParseCache,
    site: SiteContext,
    reuse: AnchorReuse | None,
    found: list[Retrieved],
    texts: Mapping[str, SourceText],
    keys: Mapping[str, list[str | None]],
    copied: Mapping[str, Set[str]],
) -> None:
    """Load the stored parses of the sentences placing the batch's sources will judge
    (:func:`name_sentences`; a long source's are loaded part by part, not held)."""
    todo = {
        id(texts[f.source]): f
        for f in found
        if not _all_known(reuse, f, keys, copied) and not is_long(texts[f.source])
    }
    parses.load(
        (texts[f.source] for f in todo.values()),
        lambda src: name_sentences(site, reuse, todo[id(src)], keys, copied, src),
    )


def part_parses(parses: ParseCache, site: SiteContext) -> PartParses:
    """Placing a part of a long source on names: the stored parses of the part's sentences
    that hold a name of a target still to place loaded before, the new parses stored after
    (a refresh that places a long source's new pairs parses nothing it parsed before). The
    judge goes on recording as it did before the part (the batch's sources share it: those
    placed after the part store what they parse with the batch)."""

    @contextmanager
    def around(plan: Plan, part: SourceText) -> Iterator[None]:
        todo = [t for t, known in zip(plan.targets, plan.known, strict=True) if known is None]
        recording = part.judge is not None and part.judge.recording
        parses.load([part], lambda src: _name_sentences_of(site, todo, src))
        yield
        parses.store([part])
        if part.judge is not None:
            part.judge.recording = recording

    return around


def _name_sentences_of(site: SiteContext, targets: Iterable[str], src: SourceText) -> set[int]:
    """The sentences (numbers of ``src.ranges``) holding a name of one of ``targets`` that
    placing on names without repairs judges (:func:`~name_anchors.judged`)."""
    return {hit[0] for t in targets for hit in name_hits(src, site.profile(t)) if judged(src, hit)}


def name_sentences(
    site: SiteContext,
    reuse: AnchorReuse | None,
    found: Retrieved,
    keys: Mapping[str, list[str | None]],
    copied: Mapping[str, Set[str]],
    src: SourceText,
) -> set[int]:
    """The sentences (numbers of ``src.ranges``) that placing the source's pairs on names
    judges: those holding a name of a target whose pair is neither copied nor known to
    ``reuse``, where the name is one word or has a link near it (the candidate step judges
    no other: see :func:`~linkpipe.lib.links.name_anchors.exact_mentions`)."""
    skip = copied.get(found.source, frozenset())
    todo = [
        target
        for target, key in zip(found.neighbours, keys[found.source], strict=True)
        if target not in skip and not (reuse is not None and reuse.covers([key]))
    ]
    return _name_sentences_of(site, todo, src)


def _all_known(
    reuse: AnchorReuse | None,
    found: Retrieved,
    keys: Mapping[str, list[str | None]],
    copied: Mapping[str, Set[str]],
) -> bool:
    """Whether ``reuse`` knows the placements of every pair of the source whose row is not
    ``copied`` (then none of its sentences is judged: its stored parses are not read)."""
    if reuse is None:
        return False
    skip = copied.get(found.source, frozenset())
    pairs = zip(keys[found.source], found.neighbours, strict=True)
    return reuse.covers(k for k, t in pairs if t not in skip)
