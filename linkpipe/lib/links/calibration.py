"""A score an editor can read: the ranking score mapped to a monotone 0..1 confidence per site.

Two calibrations, both monotone non-decreasing in the score and bounded to 0..1:

* **fitted** (:func:`fit_isotonic`): labelled pairs, those the site already links in content
  being positives, give P(linked | score) by pool-adjacent-violators over score-sorted bins
  (each bin's share smoothed as (links + 0.5) / (pairs + 1), so never exactly 0 or 1), read
  between bin centres by linear interpolation;
* **percentile** (:func:`fit_percentile`): the share of the site's suggestions that score at
  or below a score (0.75: better than three quarters of them); used while too few labelled
  pairs are known (fewer than ``min_per_class`` linked pairs or candidates).

:func:`calibrate` picks the fitted one when both classes have ``min_per_class`` pairs.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

MIN_PER_CLASS = 20
BINS = 20


@dataclass(frozen=True)
class Calibration:
    """Knots (score, confidence), both non-decreasing; ``method`` is "fitted" or "percentile"."""

    scores: tuple[float, ...]
    values: tuple[float, ...]
    method: str

    def confidence(self, score: float) -> float:
        """The confidence of a score: linear between knots, constant beyond the ends."""
        if not self.scores:
            return 0.0
        if score <= self.scores[0]:
            return round(self.values[0], 4)
        if score >= self.scores[-1]:
            return round(self.values[-1], 4)
        i = bisect.bisect_right(self.scores, score)
        x0, x1 = self.scores[i - 1], self.scores[i]
        y0, y1 = self.values[i - 1], self.values[i]
        share = (score - x0) / (x1 - x0) if x1 > x0 else 1.0
        return round(min(1.0, max(0.0, y0 + share * (y1 - y0))), 4)


def pool_adjacent(values: Sequence[float], weights: Sequence[float]) -> list[float]:
    """The non-decreasing sequence closest to ``values`` in weighted least squares (PAV)."""
    blocks: list[list[float]] = []  # [mean, weight, length]
    for v, w in zip(values, weights, strict=True):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return [b[0] for b in blocks for _ in range(int(b[2]))]


def _chunk_bounds(ordered: NDArray[np.float64], bins: int) -> list[int]:
    """Where each equal-count bin of the sorted scores ends; equal scores share a bin (a bin
    takes ``ceil(n / bins)`` scores, then every further score equal to its last)."""
    n = len(ordered)
    size = max(1, -(-n // bins))
    bounds, start = [0], 0
    while start < n:
        end = n
        if start + size < n:
            end = int(np.searchsorted(ordered, ordered[start + size - 1], "right"))
        bounds.append(end)
        start = end
    return bounds


def fit_isotonic(
    scores: Sequence[float] | NDArray[np.float64],
    labels: Sequence[bool] | NDArray[np.bool_],
    bins: int = BINS,
) -> Calibration:
    """P(label | score) from labelled scores: equal-count bins, made monotone by PAV."""
    x = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.bool_)
    if not len(x):
        return Calibration((), (), "fitted")
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    bounds = _chunk_bounds(x, bins)
    spans = list(zip(bounds[:-1], bounds[1:], strict=True))
    # each bin's scores summed in order (Python's sum): the knots of the former loop, to the bit
    centres = [sum(x[a:b].tolist()) / (b - a) for a, b in spans]
    # Jeffreys-smoothed: a bin of 5 pairs with no link says "rare", not "never"
    shares = [(int(y[a:b].sum()) + 0.5) / (b - a + 1) for a, b in spans]
    fitted = pool_adjacent(shares, [float(b - a) for a, b in spans])
    return Calibration(tuple(centres), tuple(round(v, 6) for v in fitted), "fitted")


def fit_percentile(scores: Sequence[float], knots: int = 101) -> Calibration:
    """The share of ``scores`` at or below a score, kept at up to ``knots`` points."""
    ordered = sorted(scores)
    if not ordered:
        return Calibration((), (), "percentile")
    n = len(ordered)
    picks = sorted({round(i * (n - 1) / (knots - 1)) for i in range(knots)})
    xs: list[float] = []
    ys: list[float] = []
    for i in picks:
        x = ordered[i]
        y = bisect.bisect_right(ordered, x) / n
        if xs and x == xs[-1]:
            ys[-1] = y
            continue
        xs.append(x)
        ys.append(y)
    return Calibration(tuple(xs), tuple(round(y, 6) for y in ys), "percentile")


def calibrate(
    scores: Sequence[float] | NDArray[np.float64],
    labels: Sequence[bool] | NDArray[np.bool_],
    suggested: Sequence[float],
    min_per_class: int = MIN_PER_CLASS,
) -> Calibration:
    """Fitted on the labelled ``scores`` when each class has ``min_per_class`` of them, else
    the percentile among the scores of the site's ``suggested`` pairs."""
    positives = int(np.count_nonzero(labels))
    if positives >= min_per_class and len(labels) - positives >= min_per_class:
        return fit_isotonic(scores, labels)
    return fit_percentile(suggested)
