"""The name index's (name, target) pairs as arrays: a source's best name of each target picked
with a few array operations instead of a dictionary update per pair.

:meth:`~linkpipe.lib.text.mentions.MentionIndex.mentions_of` gives each target the mention of
highest link probability among the names a source holds, the first in its order of names
(longest first, then by stems) between equal ones. :meth:`NameArrays.best` gives the same
mentions, as pair numbers in the order of the targets' URLs, for a source gate that digests
them for every source of every crawl (~160 pairs a source on the generated 10k site).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from linkpipe.lib.text.mentions import Mention, MentionIndex

NO_PAIRS = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class NameArrays:
    """Every (name, target) pair of an index, grouped by name in the order
    :meth:`~MentionIndex.mentions_of` reads them; ``version``: the index's when made."""

    version: int
    key_ids: dict[str, int]  # name key (stems joined by spaces) -> its place in that order
    starts: np.ndarray  # int64: the first pair of each name, and the number of pairs last
    targets: np.ndarray  # int64: each pair's target, its place in ``urls``
    probability: np.ndarray  # float64: each pair's link probability (as its mention holds it)
    mentions: list[Mention]  # each pair's mention
    urls: list[str]  # the targets, sorted
    url_ids: dict[str, int]

    @classmethod
    def of(cls, index: MentionIndex) -> NameArrays:
        """The pairs of ``index`` as it counts them now."""
        keys = sorted(
            (k for k, named in index.targets.items() if named), key=lambda k: (-len(k), k)
        )
        mentions: list[Mention] = []
        starts = [0]
        for key in keys:
            mentions.extend(m for _, m in index.named_by(key))
            starts.append(len(mentions))
        urls = sorted({m.target for m in mentions})
        url_ids = {u: i for i, u in enumerate(urls)}
        return cls(
            version=index.version,
            key_ids={" ".join(k): i for i, k in enumerate(keys)},
            starts=np.asarray(starts, dtype=np.int64),
            targets=np.fromiter((url_ids[m.target] for m in mentions), np.int64, len(mentions)),
            probability=np.fromiter((m.probability for m in mentions), np.float64, len(mentions)),
            mentions=mentions,
            urls=urls,
            url_ids=url_ids,
        )

    def best(self, keys: Iterable[str], exclude: str = "") -> np.ndarray:
        """The pair of each target that the name ``keys`` (stems joined by spaces) give it in
        :meth:`~MentionIndex.mentions_of` (``exclude``: a target left out), in the order of
        the targets' URLs; keys the index does not hold name nothing."""
        get = self.key_ids.get  # a key given twice gives its pairs twice: the same picked
        ids = np.array([get(k, -1) for k in keys], dtype=np.int64)
        ids = ids[ids >= 0]
        if not len(ids):
            return NO_PAIRS
        first, counts = self.starts[ids], self.starts[ids + 1] - self.starts[ids]
        offsets = np.cumsum(counts) - counts
        pairs = np.repeat(first - offsets, counts) + np.arange(int(counts.sum()))
        targets = self.targets[pairs]
        left_out = self.url_ids.get(exclude)
        if left_out is not None:
            keep = targets != left_out
            pairs, targets = pairs[keep], targets[keep]
        # by target, then the highest probability, then the first name (pairs follow the names)
        ranked = np.lexsort((pairs, -self.probability[pairs], targets))
        pairs, targets = pairs[ranked], targets[ranked]
        heads = np.ones(len(pairs), dtype=bool)
        heads[1:] = targets[1:] != targets[:-1]
        return pairs[heads]
